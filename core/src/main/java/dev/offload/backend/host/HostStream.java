package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.kernel.HostKernel;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendGraph;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * An emulated stream: a queue of operations that one worker at a time drains in order; a
 * launch of more than one chunk of blocks ({@link GridLaunch}) is taken by every worker,
 * and the stream goes on when its last chunk is done. After an operation fails, the later
 * ones are skipped (events still complete, carrying the failure), and {@link #query()}
 * and {@link #synchronize()} throw it.
 * <p>
 * A capture ({@link #capture(Consumer)}) records the operations instead of queueing them;
 * a replay queues them as one operation that runs them in order on one worker, as a GPU
 * runs a graph without a round trip per node.
 */
final class HostStream implements BackendStream {

	private final HostDevice device;

	private final int priority;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition progressed = this.lock.newCondition();

	private final ArrayDeque<Op> queue = new ArrayDeque<>();

	private long enqueued;

	private long completed;

	private int waiters;

	private boolean scheduled;

	private @Nullable BackendException failure;

	/** The operations of the capture under way on the session's thread, or null. */
	private @Nullable List<Op> recording;

	HostStream(HostDevice device, int priority) {
		this.device = device;
		this.priority = priority;
	}

	int priority() {
		return this.priority;
	}

	HostDevice device() {
		return this.device;
	}

	@Override
	public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
		ByteBuffer from = src.hostView();
		ByteBuffer to = Objects.requireNonNull(dst.hostView());
		enqueue(new Op("copy", false, () -> to.put((int) dstOffset, from, (int) srcOffset, (int) bytes)));
	}

	@Override
	public void fill(NativeMemory dst, long offset, long bytes, byte value) {
		ByteBuffer to = Objects.requireNonNull(dst.hostView());
		enqueue(new Op("fill", false, () -> {
			for (long i = offset; i < offset + bytes; i++) {
				to.put((int) i, value);
			}
		}));
	}

	@Override
	public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, Object[] args) {
		HostKernel body = ((HostBackendKernel) kernel).body();
		enqueue(new Op(new GridLaunch(this, "kernel '" + kernel.name() + "'", body, args.clone(), gridX, gridY, gridZ,
				blockX, blockY, blockZ)));
	}

	/**
	 * Enqueues the call: it runs in the stream's order on a worker, as a one-thread
	 * kernel would.
	 */
	@Override
	public void callLibrary(String operation, Runnable call) {
		enqueue(new Op(operation, false, call));
	}

	@Override
	public BackendGraph capture(Consumer<BackendStream> steps) {
		if (this.recording != null) {
			throw new IllegalStateException("A stream of host device " + this.device.id() + " is already capturing");
		}
		List<Op> ops = new ArrayList<>();
		this.recording = ops;
		try {
			steps.accept(this);
		}
		finally {
			this.recording = null;
		}
		return new HostGraph(List.copyOf(ops));
	}

	@Override
	public void launch(BackendGraph graph) {
		HostGraph hostGraph = (HostGraph) graph;
		List<Op> ops = hostGraph.operations();
		enqueue(new Op("graph of " + ops.size() + " operations", false, () -> {
			for (Op op : ops) {
				// A capture records copies, fills and launches: work, never event waits.
				Objects.requireNonNull(op.work).run();
			}
		}));
	}

	@Override
	public void record(BackendEvent event) {
		checkNotCapturing("record");
		HostEvent hostEvent = (HostEvent) event;
		long generation = hostEvent.recorded();
		enqueue(new Op("record", true, () -> hostEvent.complete(generation, currentFailure())));
	}

	@Override
	public void waitFor(BackendEvent event) {
		checkNotCapturing("waitFor");
		HostEvent hostEvent = (HostEvent) event;
		enqueue(new Op("waitFor", hostEvent, hostEvent.lastRecorded()));
	}

	@Override
	public boolean query() {
		this.device.checkFault("query");
		this.lock.lock();
		try {
			if (this.failure != null && this.completed == this.enqueued) {
				throw this.failure;
			}
			return this.completed == this.enqueued;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void synchronize() {
		BackendException error;
		this.lock.lock();
		try {
			long target = this.enqueued;
			while (this.completed < target) {
				this.waiters++;
				try {
					// As the driver's: an interrupt stays set and does not end the
					// wait, so that no caller takes a stream or its buffers back
					// under running work.
					this.progressed.awaitUninterruptibly();
				}
				finally {
					this.waiters--;
				}
			}
			error = this.failure;
		}
		finally {
			this.lock.unlock();
		}
		if (error != null) {
			throw error;
		}
		this.device.checkFault("synchronize");
	}

	@Override
	public Object handle() {
		return this;
	}

	@Override
	public void destroy() {
		// Work still queued runs to its end; nothing else holds native resources.
	}

	private @Nullable BackendException currentFailure() {
		this.lock.lock();
		try {
			return this.failure;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void checkNotCapturing(String operation) {
		if (this.recording != null) {
			throw new IllegalStateException("A capture records copies, fills and launches only, not " + operation);
		}
	}

	/**
	 * Frees emulated memory once the work enqueued before is done, as
	 * {@code cuMemFreeAsync} does; even after a failure of that work.
	 */
	void enqueueFree(Runnable free) {
		try {
			enqueue(new Op("free", true, free));
		}
		catch (BackendException ex) {
			// A failed device runs nothing more: its work is over, free now.
			free.run();
		}
	}

	private void enqueue(Op op) {
		this.device.checkFault("enqueue " + op.name);
		if (this.recording != null) {
			this.recording.add(op);
			return;
		}
		boolean schedule;
		this.lock.lock();
		try {
			this.enqueued++;
			this.queue.addLast(op);
			schedule = !this.scheduled;
			this.scheduled = true;
		}
		finally {
			this.lock.unlock();
		}
		if (schedule) {
			this.device.schedule(this);
		}
	}

	/**
	 * Runs queued operations in order until the queue is empty or an event wait blocks;
	 * runs on a worker.
	 */
	void drain() {
		while (true) {
			Op op;
			boolean failed;
			this.lock.lock();
			try {
				op = this.queue.peekFirst();
				if (op == null) {
					this.scheduled = false;
					return;
				}
				failed = this.failure != null;
			}
			finally {
				this.lock.unlock();
			}
			if (op.event != null && op.event.whenComplete(op.generation, () -> this.device.schedule(this))) {
				// Parked until the event completes; its callback schedules this stream
				// again.
				return;
			}
			if (!failed && op.launch != null && op.launch.isChunked()) {
				// The workers take the launch's chunks; its last one calls finishLaunch,
				// and this stream goes on.
				op.launch.start();
				return;
			}
			finish((failed && !op.alwaysRuns) ? null : run(op));
		}
	}

	/**
	 * Completes a chunked launch at the head of the queue and gives the stream's next
	 * operations to a worker.
	 * @param error the launch's failure, or {@code null}
	 */
	void finishLaunch(@Nullable BackendException error) {
		finish(error);
		if (!this.device.offer(this.priority, this::drain)) {
			drain();
		}
	}

	private void finish(@Nullable BackendException error) {
		this.lock.lock();
		try {
			this.queue.pollFirst();
			this.completed++;
			if (error != null && this.failure == null) {
				this.failure = error;
			}
			if (this.waiters > 0) {
				this.progressed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private @Nullable BackendException run(Op op) {
		if (op.work == null) {
			return null;
		}
		try {
			op.work.run();
			return null;
		}
		catch (Throwable ex) {
			BackendException error = failureOf(op.name, ex);
			if (isFatal(ex)) {
				throw (Error) ex;
			}
			return error;
		}
	}

	/**
	 * The failure that a throwable of an operation is: a backend exception (a library
	 * emulation's error) is itself, an access outside a buffer is a sticky illegal
	 * address that fails the device, anything else fails the stream's work.
	 * @param name the operation
	 * @param ex what it threw
	 * @return the failure
	 */
	BackendException failureOf(String name, Throwable ex) {
		if (ex instanceof BackendException error) {
			// A library's emulation reports its own error (a BLAS status) as it is.
			if (error.isSticky()) {
				this.device.fail(error);
			}
			return error;
		}
		if (ex instanceof IndexOutOfBoundsException) {
			BackendException error = new BackendException(name, "HOST_ERROR_ILLEGAL_ADDRESS",
					"an access outside a buffer (" + ex + ")", this.device.id(), true, ex);
			this.device.fail(error);
			return error;
		}
		return new BackendException(name, "HOST_ERROR_LAUNCH_FAILED", ex.toString(), this.device.id(), false, ex);
	}

	/**
	 * Whether a throwable is an error that a worker passes on after recording it (not an
	 * assertion or a stack overflow, which are a kernel's own failures).
	 * @param ex what an operation threw
	 * @return {@code true} if it is rethrown
	 */
	static boolean isFatal(Throwable ex) {
		return ex instanceof Error && !(ex instanceof AssertionError || ex instanceof StackOverflowError);
	}

	/**
	 * One queued operation: work to run, or a wait for an event's generation.
	 */
	private static final class Op {

		final String name;

		final boolean alwaysRuns;

		final @Nullable Runnable work;

		final @Nullable HostEvent event;

		final long generation;

		final @Nullable GridLaunch launch;

		Op(String name, boolean alwaysRuns, Runnable work) {
			this(name, alwaysRuns, work, null, 0, null);
		}

		Op(String name, HostEvent event, long generation) {
			this(name, true, null, event, generation, null);
		}

		Op(GridLaunch launch) {
			this(launch.name(), false, launch::runWhole, null, 0, launch);
		}

		private Op(String name, boolean alwaysRuns, @Nullable Runnable work, @Nullable HostEvent event, long generation,
				@Nullable GridLaunch launch) {
			this.name = name;
			this.alwaysRuns = alwaysRuns;
			this.work = work;
			this.event = event;
			this.generation = generation;
			this.launch = launch;
		}

	}

	/**
	 * A recorded sequence; nothing native to release.
	 */
	private record HostGraph(List<Op> operations) implements BackendGraph {

		@Override
		public void destroy() {
		}

	}

	/**
	 * A host kernel as the backend sees it.
	 */
	record HostBackendKernel(String name, List<ParamKind> parameters, HostKernel body) implements BackendKernel {

	}

}
