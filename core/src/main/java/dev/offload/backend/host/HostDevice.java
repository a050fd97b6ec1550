package dev.offload.backend.host;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * One emulated device: its workers take the waiting tasks (a stream's turn to run its
 * operations, or chunks of a launch's blocks), the highest stream priority first.
 */
final class HostDevice implements BackendDevice {

	/**
	 * CUDA's priorities run from 0 (least) to negative numbers (greatest); the host
	 * mirrors an H200's range.
	 */
	static final int LEAST_PRIORITY = 0;

	static final int GREATEST_PRIORITY = -5;

	private final DeviceInfo info;

	private final int workerCount;

	private final ThreadPoolExecutor workers;

	private final AtomicLong taskSequence = new AtomicLong();

	/**
	 * Workers blocked in {@link #managedBlock}, each replaced by one more worker; guarded
	 * by {@code this}.
	 */
	private int blockedWorkers;

	private volatile @Nullable BackendException fault;

	/** The emulated device memory allocated and not yet freed. */
	private final AtomicLong allocatedBytes = new AtomicLong();

	/**
	 * Told of each module loaded, to say that its CUDA source, if any, was not compiled.
	 */
	private final Consumer<ModuleDefinition> onModuleLoaded;

	HostDevice(int id, String name, int workerCount, long memoryBytes, Consumer<ModuleDefinition> onModuleLoaded) {
		this.onModuleLoaded = onModuleLoaded;
		this.info = new DeviceInfo(id, name, 0, 0, memoryBytes, workerCount, LEAST_PRIORITY, GREATEST_PRIORITY);
		this.workerCount = workerCount;
		this.workers = new ThreadPoolExecutor(workerCount, workerCount, 30, TimeUnit.SECONDS,
				new PriorityBlockingQueue<>(), new WorkerFactory(id));
		this.workers.allowCoreThreadTimeOut(true);
	}

	@Override
	public DeviceInfo info() {
		return this.info;
	}

	@Override
	public BackendStream createStream(int priority) {
		checkFault("createStream");
		if (priority > LEAST_PRIORITY || priority < GREATEST_PRIORITY) {
			throw new BackendException("createStream", "HOST_ERROR_INVALID_VALUE",
					"priority " + priority + " is outside " + LEAST_PRIORITY + ".." + GREATEST_PRIORITY, id(), false,
					null);
		}
		return new HostStream(this, priority);
	}

	@Override
	public BackendEvent createEvent() {
		checkFault("createEvent");
		return new HostEvent(this);
	}

	@Override
	public NativeMemory allocateDevice(long bytes) {
		return allocate(bytes, false);
	}

	@Override
	public NativeMemory allocateDevice(long bytes, BackendStream stream) {
		// Ordering on the host: the memory is there at once; its free waits for the
		// stream (HostMemory.free(BackendStream)).
		return allocate(bytes, false);
	}

	@Override
	public long freeMemoryBytes() {
		return Math.max(0, this.info.totalMemoryBytes() - this.allocatedBytes.get());
	}

	/**
	 * Returns the emulated device memory allocated and not yet freed.
	 * @return the bytes
	 */
	long allocatedBytes() {
		return this.allocatedBytes.get();
	}

	@Override
	public NativeMemory allocateHost(long bytes) {
		return allocate(bytes, true);
	}

	private NativeMemory allocate(long bytes, boolean host) {
		checkFault(host ? "allocateHost" : "allocateDevice");
		if (bytes > Integer.MAX_VALUE) {
			throw new BackendException(host ? "allocateHost" : "allocateDevice", "HOST_ERROR_OUT_OF_MEMORY",
					"the host backend allocates at most " + Integer.MAX_VALUE + " bytes at once, was " + bytes, id(),
					false, null);
		}
		if (!host && !reserve(bytes)) {
			throw new BackendException("allocateDevice", "HOST_ERROR_OUT_OF_MEMORY",
					bytes + " bytes: " + this.allocatedBytes.get() + " of the emulated " + this.info.totalMemoryBytes()
							+ " bytes are allocated (offload.host.memory)",
					id(), false, null);
		}
		try {
			return new HostMemory((int) bytes, host, host ? null : this.allocatedBytes);
		}
		catch (OutOfMemoryError ex) {
			if (!host) {
				this.allocatedBytes.addAndGet(-bytes);
			}
			throw new BackendException(host ? "allocateHost" : "allocateDevice", "HOST_ERROR_OUT_OF_MEMORY",
					bytes + " bytes: " + ex.getMessage(), id(), false, ex);
		}
	}

	private boolean reserve(long bytes) {
		long total = this.info.totalMemoryBytes();
		while (true) {
			long allocated = this.allocatedBytes.get();
			if (allocated + bytes > total) {
				return false;
			}
			if (this.allocatedBytes.compareAndSet(allocated, allocated + bytes)) {
				return true;
			}
		}
	}

	@Override
	public BackendModule loadModule(ModuleDefinition definition) {
		checkFault("loadModule");
		if (definition.hostKernels().isEmpty()) {
			throw new BackendException("loadModule", "HOST_ERROR_NO_HOST_CODE",
					"module '" + definition.name()
							+ "' has no host kernels; add them with ModuleDefinition.Builder.hostKernel",
					id(), false, null);
		}
		this.onModuleLoaded.accept(definition);
		Map<String, BackendKernel> kernels = new LinkedHashMap<>();
		definition.hostKernels()
			.forEach((name, kernel) -> kernels.put(name,
					new HostStream.HostBackendKernel(name, kernel.parameters(), kernel.kernel())));
		return new BackendModule() {

			@Override
			public Map<String, BackendKernel> kernels() {
				return kernels;
			}

			@Override
			public void unload() {
			}

		};
	}

	@Override
	public void close() {
		this.workers.shutdown();
	}

	int id() {
		return this.info.id();
	}

	int workerCount() {
		return this.workerCount;
	}

	/**
	 * Runs a kernel thread's blocking wait with one more worker while it lasts, so that
	 * the waiting kernel does not take a worker from other streams (a GPU runs other
	 * streams' blocks beside a spinning one). The extra worker leaves once it is idle
	 * after the wait ends.
	 */
	void managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
		if (blocker.isReleasable()) {
			return;
		}
		resize(1);
		try {
			while (!blocker.isReleasable() && !blocker.block()) {
				// block() returned early without the wait being over: wait again.
			}
		}
		finally {
			resize(-1);
		}
	}

	private synchronized void resize(int change) {
		this.blockedWorkers += change;
		int size = this.workerCount + this.blockedWorkers;
		if (this.workers.isShutdown()) {
			return;
		}
		// The maximum may never be below the core size: grow it first, shrink it last.
		if (change > 0) {
			this.workers.setMaximumPoolSize(size);
			this.workers.setCorePoolSize(size);
		}
		else {
			this.workers.setCorePoolSize(size);
			this.workers.setMaximumPoolSize(size);
		}
	}

	void schedule(HostStream stream) {
		this.workers.execute(task(stream.priority(), stream::drain));
	}

	/**
	 * Queues work for a worker, behind the waiting work of the same or a higher priority.
	 * @param priority the priority of the stream the work belongs to
	 * @param work the work
	 * @return {@code false} if the device is closed and takes no more tasks: the caller
	 * runs the work itself
	 */
	boolean offer(int priority, Runnable work) {
		try {
			this.workers.execute(task(priority, work));
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	private Task task(int priority, Runnable work) {
		return new Task(priority, this.taskSequence.incrementAndGet(), work);
	}

	void fail(BackendException error) {
		if (this.fault == null) {
			this.fault = error;
		}
	}

	void checkFault(String call) {
		BackendException error = this.fault;
		if (error != null) {
			throw new BackendException(call, error.getErrorName(),
					"the device failed earlier, in " + error.getCall() + ": " + error.getErrorText(), id(), true,
					error);
		}
	}

	/**
	 * Work waiting for a worker; higher priority (a lower number) first, then first come
	 * first served.
	 */
	private record Task(int priority, long sequence, Runnable work) implements Runnable, Comparable<Task> {

		@Override
		public void run() {
			this.work.run();
		}

		@Override
		public int compareTo(Task other) {
			int byPriority = Integer.compare(this.priority, other.priority);
			return (byPriority != 0) ? byPriority : Long.compare(this.sequence, other.sequence);
		}

	}

	private static final class WorkerFactory implements ThreadFactory {

		private final int deviceId;

		private final AtomicInteger count = new AtomicInteger();

		WorkerFactory(int deviceId) {
			this.deviceId = deviceId;
		}

		@Override
		public Thread newThread(Runnable task) {
			Thread thread = new Thread(task,
					"offload-host" + this.deviceId + "-worker-" + this.count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		}

	}

}
