package dev.offload;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.SessionDeadline;
import dev.offload.internal.memory.DeviceMemory;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * One device of a {@link DeviceRegistry}: its {@link StreamPool}, event pool, buffer
 * cache, loaded modules and completion thread. Open work on it with
 * {@link #openSession()}.
 * <p>
 * A sticky backend error (an illegal address, a launch failure) fails the device: it
 * stops lending streams, new sessions fail fast with {@link DeviceFailedException}, and
 * the other devices go on working.
 */
public final class Device {

	private static final Logger logger = LoggerFactory.getLogger(Device.class);

	private final String backendName;

	/**
	 * Whether the work runs on this machine's processors (the host backend): a thread
	 * that spins waiting for it takes a processor from it.
	 */
	private final boolean workOnHostProcessors;

	private final BackendDevice backendDevice;

	private final DeviceInfo info;

	private final OffloadListener listener;

	private final StreamPool streamPool;

	private final EventPool eventPool;

	/** The budget, the buffer cache and the page-locked staging, behind one door. */
	private final DeviceMemory memory;

	/** The handles of stream libraries (cuBLAS) on this device's pooled streams. */
	private final LibraryHandles libraryHandles = new LibraryHandles(this);

	private final Map<String, KernelModule> modules = new ConcurrentHashMap<>();

	/** The kernels {@link #kernel(KernelRef)} found last, by the reference's identity. */
	private final @Nullable ResolvedKernel[] resolvedKernels = new ResolvedKernel[16];

	private final LongAdder activeSessions = new LongAdder();

	/** Threads that join sessions' futures and wait for the work in the driver. */
	private final AtomicInteger joinersInDriver = new AtomicInteger();

	/** Captured flows still open: the device destroys them before its context goes. */
	private final Set<CapturedFlow> capturedFlows = ConcurrentHashMap.newKeySet();

	private volatile @Nullable CompletionPoller completionPoller;

	private final Executor completionExecutor;

	private final @Nullable Duration sessionTimeout;

	/** Set when shutdown began: new sessions are refused, the open ones may finish. */
	private volatile boolean closing;

	/**
	 * The sticky error that failed the device, set once: the device's health, which its
	 * pool reads to stop lending.
	 */
	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	/**
	 * The fault the GPU reported last (an Xid through NVML); a fatal one is kept over
	 * later lesser ones.
	 */
	private final AtomicReference<@Nullable GpuFault> gpuFault = new AtomicReference<>();

	/**
	 * Signalled when a session ends while the device closes; a lock, not a monitor, so
	 * that waiting never pins.
	 */
	private final ReentrantLock drainLock = new ReentrantLock();

	private final Condition drained = this.drainLock.newCondition();

	Device(String backendName, boolean workOnHostProcessors, BackendDevice backendDevice, StreamPoolConfig poolConfig,
			OffloadListener listener, long bufferCacheMaxBytes, MemoryConfig memoryConfig, Executor completionExecutor,
			@Nullable Duration sessionTimeout, TenantPolicy tenants) {
		this.sessionTimeout = SessionDeadline.checked(sessionTimeout, "sessionTimeout");
		this.backendName = backendName;
		this.workOnHostProcessors = workOnHostProcessors;
		this.completionExecutor = completionExecutor;
		this.backendDevice = backendDevice;
		this.info = backendDevice.info();
		this.listener = CompositeOffloadListener.isolating(listener);
		this.streamPool = new StreamPool(this, poolConfig, tenants);
		this.eventPool = new EventPool(backendDevice);
		this.memory = new DeviceMemory(backendDevice, this.info, memoryConfig.budgetFor(this.info.usableMemoryBytes()),
				bufferCacheMaxBytes);
		SessionWaits.initializeVirtualThreadWaits();
	}

	/**
	 * Returns the device's id (its ordinal in the backend).
	 * @return the id
	 */
	public int id() {
		return this.info.id();
	}

	/**
	 * Returns the device's name.
	 * @return e.g. {@code "NVIDIA H200"}
	 */
	public String name() {
		return this.info.name();
	}

	/**
	 * Returns the name of the backend running the device.
	 * @return {@code "cuda"} or {@code "host"}
	 */
	public String backendName() {
		return this.backendName;
	}

	/**
	 * Returns the device's properties: compute capability, memory, multiprocessors,
	 * priority range.
	 * @return the properties
	 */
	public DeviceInfo info() {
		return this.info;
	}

	/**
	 * Returns the device's stream pool.
	 * @return the pool
	 */
	public StreamPool streamPool() {
		return this.streamPool;
	}

	/**
	 * Returns the device's event pool.
	 * @return the pool
	 */
	EventPool eventPool() {
		return this.eventPool;
	}

	/**
	 * Returns the sessions opened and not yet ended.
	 * @return the number of active sessions
	 */
	public int activeSessions() {
		return this.activeSessions.intValue();
	}

	/**
	 * Tells whether the device's stream pool is saturated: a borrower waits for a stream.
	 * @return {@code true} while at least one borrower waits
	 * @see StreamPool#isSaturated()
	 */
	public boolean isSaturated() {
		return this.streamPool.isSaturated();
	}

	/**
	 * Returns the timeout of sessions opened without one.
	 * @return the default session timeout, or {@code null} for none
	 */
	public @Nullable Duration sessionTimeout() {
		return this.sessionTimeout;
	}

	/**
	 * Tells whether the device can take work.
	 * @return {@code false} once a sticky error failed it
	 */
	public boolean isHealthy() {
		return this.failure.get() == null;
	}

	/**
	 * Returns the sticky error that failed the device, if one did.
	 * @return the error, or empty while the device is healthy
	 */
	public Optional<Throwable> failure() {
		return Optional.ofNullable(this.failure.get());
	}

	/**
	 * Tells whether the GPU reported a lesser fault of this device (an Xid that does not
	 * fail it, such as a page retirement): it still lends streams.
	 * @return {@code true} while the device is healthy and such a fault was reported
	 * @see #gpuFault()
	 */
	public boolean isDegraded() {
		GpuFault fault = this.gpuFault.get();
		return fault != null && !fault.fatal() && isHealthy();
	}

	/**
	 * Returns the fault the GPU reported of this device (an Xid, through NVML): the fatal
	 * one that failed it, or else the latest lesser one.
	 * @return the fault, or empty if none was reported
	 */
	public Optional<GpuFault> gpuFault() {
		return Optional.ofNullable(this.gpuFault.get());
	}

	/**
	 * Takes a fault the GPU reported: logs it once at ERROR, tells the listener, and
	 * fails the device if it is fatal.
	 */
	void gpuFaultReported(GpuFault fault) {
		this.gpuFault.updateAndGet((current) -> (current != null && current.fatal()) ? current : fault);
		boolean failsNow = fault.fatal() && isHealthy();
		logger.error("The GPU reported Xid {} ({}) on device {} ({}) at {}; {}", fault.xid(), fault.meaning(), id(),
				name(), fault.time(), failsNow ? "the device failed and stops lending streams" : fault.fatal()
						? "the device had failed before" : "the device is degraded and goes on lending streams");
		this.listener.gpuFault(this, fault);
		if (fault.fatal()) {
			fail(new GpuFaultException(fault), false);
		}
	}

	@Nullable Throwable stickyError() {
		return this.failure.get();
	}

	/**
	 * Opens a session with a {@link StreamPriority#NORMAL} stream. The stream is borrowed
	 * on the first operation.
	 * @return the session, which the caller must close
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down
	 */
	public OffloadSession openSession() {
		return openSession(StreamPriority.NORMAL);
	}

	/**
	 * Opens a session. The stream is borrowed on the first operation.
	 * @param priority the stream's priority class
	 * @return the session, which the caller must close
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down
	 */
	public OffloadSession openSession(StreamPriority priority) {
		return openSession(priority, null);
	}

	/**
	 * Opens a session with a deadline: waits of its caller (for a stream, in
	 * {@code synchronize} and {@code close}) end by {@code timeout} after now with a
	 * {@link SessionTimeoutException}.
	 * @param priority the stream's priority class
	 * @param timeout the time from now to the deadline, or {@code null} for the device's
	 * {@linkplain #sessionTimeout() default}
	 * @return the session, which the caller must close
	 * @throws IllegalArgumentException if the timeout is not positive
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down or shutting down
	 */
	public OffloadSession openSession(StreamPriority priority, @Nullable Duration timeout) {
		return openSession(priority, timeout, null);
	}

	/**
	 * Opens a session for a tenant ({@link DeviceRegistry#openSession(SessionOptions)}).
	 */
	OffloadSession openSession(StreamPriority priority, @Nullable Duration timeout, @Nullable String tenant) {
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
		SessionDeadline.checked(timeout, "timeout");
		checkUsable();
		if (this.closing) {
			throw new StreamPoolClosedException(id());
		}
		OffloadSession session = new OffloadSession(this, priority, (timeout != null) ? timeout : this.sessionTimeout,
				tenant);
		this.activeSessions.increment();
		this.listener.sessionOpened(session);
		return session;
	}

	/**
	 * Loads a module on this device, once per module name.
	 * @param definition the module
	 * @return the loaded module (the one loaded before under the same name, if any)
	 * @throws BackendException if the backend cannot load it
	 */
	public KernelModule loadModule(ModuleDefinition definition) {
		if (definition == null) {
			throw new IllegalArgumentException("definition must not be null");
		}
		checkUsable();
		return this.modules.computeIfAbsent(definition.name(),
				(name) -> new KernelModule(this, definition, call(() -> this.backendDevice.loadModule(definition))));
	}

	/**
	 * Returns a kernel of this device, loading its module the first time.
	 * @param kernel the kernel's module and name
	 * @return the kernel on this device
	 * @throws NoSuchKernelException if the module has no kernel of that name
	 * @throws BackendException if the backend cannot load the module
	 */
	public Kernel kernel(KernelRef kernel) {
		if (kernel == null) {
			throw new IllegalArgumentException("kernel must not be null");
		}
		// A fluent call looks its kernel up on every run: the reference the application
		// keeps finds it by identity here, without the modules' and kernels' maps.
		int slot = System.identityHashCode(kernel) & (this.resolvedKernels.length - 1);
		ResolvedKernel resolved = this.resolvedKernels[slot];
		if (resolved != null && resolved.ref() == kernel) {
			checkUsable();
			return resolved.kernel();
		}
		Kernel loaded = loadModule(kernel.module()).kernel(kernel.name());
		this.resolvedKernels[slot] = new ResolvedKernel(kernel, loaded);
		return loaded;
	}

	/**
	 * A kernel found by {@link #kernel(KernelRef)}; immutable, so that a thread that
	 * reads one another wrote sees it whole.
	 */
	private record ResolvedKernel(KernelRef ref, Kernel kernel) {
	}

	/**
	 * Allocates device memory owned by the caller, who must close it once no session uses
	 * it. It counts against the device's memory budget until closed; waits for the budget
	 * up to the borrow timeout of {@link StreamPriority#NORMAL} streams.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 * @throws MemoryBudgetExceededException if the budget did not admit the buffer in
	 * time, or is smaller than it
	 * @throws DeviceOutOfMemoryException if the device had no memory, even after Offload
	 * gave back what it cached
	 */
	public DeviceBuffer allocate(long bytes) {
		checkBytes(bytes, false);
		long charged = allocationSize(bytes);
		this.memory.acquireBudget(charged, StreamPriority.NORMAL,
				this.streamPool.borrowTimeoutNanos(StreamPriority.NORMAL), null);
		try {
			return new DeviceBuffer(this, acquireDeviceMemory(bytes, null), bytes, null);
		}
		catch (RuntimeException ex) {
			this.memory.releaseBudget(charged);
			throw ex;
		}
	}

	/**
	 * Allocates page-locked host memory owned by the caller, who must close it once no
	 * session uses it.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 * @throws HostStagingOutOfMemoryException if the host had no page-locked memory for
	 * the staging chunk it needed (retryable)
	 */
	public HostBuffer allocateHost(long bytes) {
		return new HostBuffer(this, acquireHostMemory(bytes), bytes, null);
	}

	/**
	 * Frees the device memory kept for reuse by closed buffers, without synchronizing the
	 * device (the frees are stream-ordered, on the device's memory thread). Page-locked
	 * staging is not trimmed here: the memory thread gives back its chunks once they have
	 * gone unused for about 30 seconds, and the rest when the device closes.
	 */
	public void trimBufferCache() {
		this.memory.trimDevice();
	}

	/**
	 * Returns the device memory kept for reuse by closed buffers.
	 * @return the cached bytes
	 */
	public long cachedBufferBytes() {
		return this.memory.cachedBytes();
	}

	/**
	 * Returns the device memory a buffer of {@code bytes} takes, from the device and from
	 * the budget: its size class (at least 512 bytes, then four classes per power of two,
	 * so at most 25% more than asked for).
	 * @param bytes the buffer's size, at least 1
	 * @return the bytes it takes
	 */
	public static long allocationSize(long bytes) {
		if (bytes < 1) {
			throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
		}
		return DeviceMemory.sizeClass(bytes);
	}

	/**
	 * Returns the device's memory as Offload accounts it: bytes in use, cached and at
	 * peak (device and page-locked host), the budget, the cache's hits, misses and
	 * evictions, the driver's allocations and frees, out-of-memory retries and the
	 * budget's waits.
	 * @return a snapshot of the memory statistics
	 */
	public MemoryStatistics memoryStatistics() {
		return this.memory.statistics();
	}

	DeviceMemory memory() {
		return this.memory;
	}

	/**
	 * Returns what a stream library holds and did on this device: its handles (one per
	 * pooled stream that called it), their workspace (which also counts in the
	 * {@linkplain #memoryStatistics() memory statistics}' bytes in use), and its calls.
	 * @param library the library
	 * @return a snapshot; zeros for a library never called here
	 */
	public LibraryStatistics libraryStatistics(StreamLibrary<?> library) {
		if (library == null) {
			throw new IllegalArgumentException("library must not be null");
		}
		return this.libraryHandles.statistics(library);
	}

	LibraryHandles libraryHandles() {
		return this.libraryHandles;
	}

	/**
	 * Returns device memory for a buffer whose budget is already charged.
	 * @param stream the session's stream, whose order a new allocation joins, or
	 * {@code null}
	 */
	NativeMemory acquireDeviceMemory(long bytes, @Nullable BackendStream stream) {
		checkBytes(bytes, false);
		checkUsable();
		// No lambda: a cache hit allocates nothing but the buffer.
		try {
			return this.memory.acquireDevice(bytes, stream);
		}
		catch (BackendException ex) {
			failIfSticky(ex);
			throw ex;
		}
	}

	NativeMemory acquireHostMemory(long bytes) {
		checkBytes(bytes, true);
		checkUsable();
		return call(() -> this.memory.acquireHost(bytes));
	}

	private static void checkBytes(long bytes, boolean host) {
		if (bytes < 1) {
			throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
		}
		if (host && bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"A host buffer holds at most " + Integer.MAX_VALUE + " bytes, was " + bytes);
		}
	}

	void adopt(CapturedFlow flow) {
		this.capturedFlows.add(flow);
	}

	void disown(CapturedFlow flow) {
		this.capturedFlows.remove(flow);
	}

	/**
	 * Returns the number of captured flows not yet closed.
	 * @return the flows this device will destroy when it shuts down
	 */
	public int capturedFlows() {
		return this.capturedFlows.size();
	}

	/**
	 * Takes back a buffer's memory once its work is done; an application-owned device
	 * buffer gives its budget back too (a session's buffers are in its reservation).
	 */
	void releaseMemory(NativeMemory memory, boolean charged) {
		try {
			this.memory.release(memory);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not free {} bytes of device {}: {}", memory.size(), id(), ex.getMessage());
		}
		finally {
			if (charged && !memory.isHost()) {
				this.memory.releaseBudget(memory.size());
			}
			if (this.closing && memory.isHost()) {
				// Shutdown may be waiting for the page-locked memory to come back.
				signalDrained();
			}
		}
	}

	private <T> T call(java.util.function.Supplier<T> backendCall) {
		try {
			return backendCall.get();
		}
		catch (BackendException ex) {
			failIfSticky(ex);
			throw ex;
		}
	}

	void checkUsable() {
		this.streamPool.checkLending();
	}

	void failIfSticky(Throwable error) {
		if (error instanceof BackendException backendError && backendError.isSticky()) {
			fail(backendError);
		}
	}

	/**
	 * Marks the device failed: it stops lending and new sessions fail fast with
	 * {@code cause}.
	 * @param cause the sticky error
	 */
	void fail(Throwable cause) {
		fail(cause, true);
	}

	private void fail(Throwable cause, boolean log) {
		if (this.failure.compareAndSet(null, cause)) {
			this.streamPool.deviceFailed();
			if (log) {
				logger.error("Device {} ({}) failed and stops lending streams: {}", id(), name(), cause.getMessage());
			}
			this.listener.deviceFailed(this, cause);
		}
	}

	OffloadListener listener() {
		return this.listener;
	}

	BackendDevice backendDevice() {
		return this.backendDevice;
	}

	int nativePriority(StreamPriority priority) {
		return (priority == StreamPriority.HIGH) ? this.info.greatestPriority() : this.info.leastPriority();
	}

	CompletionPoller completionPoller() {
		CompletionPoller poller = this.completionPoller;
		if (poller == null) {
			synchronized (this) {
				poller = this.completionPoller;
				if (poller == null) {
					poller = new CompletionPoller(id(), this.completionExecutor);
					this.completionPoller = poller;
				}
			}
		}
		return poller;
	}

	/**
	 * Returns the sessions handed to the completion thread and not yet done.
	 */
	int pendingCompletions() {
		CompletionPoller poller = this.completionPoller;
		return (poller != null) ? poller.outstanding() : 0;
	}

	/**
	 * Counts a thread that joins a session's future and waits for its work in the driver,
	 * until {@link #joinerLeftDriver()}.
	 */
	void joinerInDriver() {
		this.joinersInDriver.incrementAndGet();
	}

	void joinerLeftDriver() {
		this.joinersInDriver.decrementAndGet();
	}

	/**
	 * Returns how many threads that join sessions' futures wait in the driver now.
	 * @return the count
	 */
	int joinersInDriver() {
		return this.joinersInDriver.get();
	}

	/**
	 * Returns a future for asynchronous work of this device: its dependent stages run on
	 * the completion executor.
	 */
	Executor completionExecutor() {
		return this.completionExecutor;
	}

	CompletionFuture<Void> newCompletionFuture() {
		return new CompletionFuture<>(this.completionExecutor, !this.workOnHostProcessors);
	}

	/**
	 * Tells whether the device's work runs on this machine's processors (the host
	 * backend), which a thread spinning while it waits for the work would take from it.
	 */
	boolean runsWorkOnHostProcessors() {
		return this.workOnHostProcessors;
	}

	/**
	 * Has the completion thread watch {@code event} (recorded on a session's stream) and
	 * complete {@code reached} once it is, or with the failure of the work before it; the
	 * event goes back to the pool then.
	 */
	void watch(BackendEvent event, CompletionFuture<Void> reached) {
		CompletionPoller poller = completionPoller();
		poller.submit(new CompletionPoller.Task() {

			@Override
			public boolean poll() {
				boolean done;
				try {
					done = event.query();
				}
				catch (RuntimeException ex) {
					failIfSticky(ex);
					Device.this.eventPool.release(event);
					poller.complete(reached, ex);
					return true;
				}
				if (done) {
					Device.this.eventPool.release(event);
					poller.complete(reached, null);
				}
				return done;
			}

			@Override
			public void abandon(String reason) {
				// The event stays recorded on a stream that is still lent: it is not
				// given back to the pool.
				poller.complete(reached, new StreamPoolClosedException("Device " + id() + " was " + reason));
			}

		});
	}

	@Nullable Thread completionThread() {
		CompletionPoller poller = this.completionPoller;
		return (poller != null) ? poller.thread() : null;
	}

	void sessionEnded(OffloadSession session, @Nullable Throwable failure) {
		this.activeSessions.decrement();
		if (this.closing) {
			signalDrained();
		}
		if (isListened()) {
			this.listener.sessionClosed(session, System.nanoTime() - session.openedNanos(), failure);
		}
	}

	boolean isListened() {
		return this.listener != OffloadListener.NONE;
	}

	/**
	 * Refuses new sessions from now on; the open ones may go on until {@link #close} ends
	 * them.
	 */
	void refuseNewSessions() {
		this.closing = true;
	}

	/**
	 * Refuses new sessions, waits for the open ones to end (their streams may still be
	 * borrowed meanwhile), stops lending, waits for lent streams, then releases the
	 * device's resources. Sessions left on the completion thread when the time is up are
	 * failed with a {@link StreamPoolClosedException}, never dropped.
	 * @param awaitTermination how long to wait for sessions and lent streams
	 * @return {@code true} if everything was released; {@code false} if sessions were
	 * still open or streams lent
	 */
	boolean close(Duration awaitTermination) {
		refuseNewSessions();
		long deadline = System.nanoTime() + awaitTermination.toNanos();
		awaitDrained(() -> activeSessions() == 0, deadline);
		boolean drained = this.streamPool.shutdown(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		CompletionPoller poller = this.completionPoller;
		if (!drained || activeSessions() > 0) {
			logger.warn("Device {}: {} stream(s) still lent and {} session(s) active after {} ms; sessions waiting "
					+ "for their work are failed, lent streams are not destroyed, and the device's context stays", id(),
					this.streamPool.inUse(), activeSessions(), awaitTermination.toMillis());
			if (poller != null) {
				poller.stopAndAbandon("shut down before its work finished (shutdown waited "
						+ awaitTermination.toMillis() + " ms for the sessions in flight)");
			}
			return false;
		}
		if (poller != null) {
			poller.stop();
		}
		// Every page-locked block back: the host buffers a caller owns, such as the
		// outputs an asynchronous call reads on the completion executor once its session
		// ended.
		boolean hostMemoryBack = awaitDrained(() -> this.memory.hostUsedBytes() == 0, deadline);
		this.eventPool.close();
		this.capturedFlows.forEach(CapturedFlow::destroy);
		this.capturedFlows.clear();
		this.modules.values().forEach(this::unloadQuietly);
		if (!hostMemoryBack) {
			// The JVM reads page-locked memory directly: freeing it (or the context that
			// holds it) under an open buffer would crash a later read.
			logger.warn(
					"Device {}: {} bytes of page-locked memory still held by open host buffers after {} ms; "
							+ "they and the device's context are kept",
					id(), this.memory.hostUsedBytes(), awaitTermination.toMillis());
			this.memory.closeKeepingHostMemory();
			return false;
		}
		this.memory.close();
		this.backendDevice.close();
		return true;
	}

	/**
	 * Waits, up to {@code deadline}, until {@code done} holds; woken when a session ends
	 * or page-locked memory comes back while the device closes.
	 * @return whether it holds
	 */
	private boolean awaitDrained(BooleanSupplier done, long deadline) {
		this.drainLock.lock();
		try {
			while (!done.getAsBoolean()) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				// Bounded so that a missed wake-up costs at most 50 ms.
				this.drained.awaitNanos(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.drainLock.unlock();
		}
	}

	private void signalDrained() {
		this.drainLock.lock();
		try {
			this.drained.signalAll();
		}
		finally {
			this.drainLock.unlock();
		}
	}

	private void unloadQuietly(KernelModule module) {
		try {
			module.unload();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not unload module '{}' of device {}: {}", module.name(), id(), ex.getMessage());
		}
	}

	@Override
	public String toString() {
		return "Device[" + id() + ", " + name() + ", " + this.backendName + (isHealthy() ? "" : ", failed") + "]";
	}

}
