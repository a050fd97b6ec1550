package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.internal.completion.Completions;
import dev.offload.internal.memory.MemoryTuning;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * What one {@link OffloadSession} holds and how it ends: its stream (borrowed on first
 * use), its buffers, events and memory reservation, the failure of its work, and its
 * waits, ended synchronously or handed to the device's completion engine. The session is
 * the API in front of it: it checks its callers' arguments and asks this for the rest.
 * Used by one thread at a time, as the session; the completion thread ends it through
 * {@link End}.
 */
final class SessionWork {

	private static final AtomicIntegerFieldUpdater<SessionWork> AWAITING = AtomicIntegerFieldUpdater
		.newUpdater(SessionWork.class, "awaiting");

	private static final AtomicIntegerFieldUpdater<SessionWork> CLOSED_COUNT = AtomicIntegerFieldUpdater
		.newUpdater(SessionWork.class, "closedCount");

	private static final AtomicLongFieldUpdater<SessionWork> CLOSED_HOST_BYTES = AtomicLongFieldUpdater
		.newUpdater(SessionWork.class, "closedHostBytes");

	private static final Buffer[] NO_BUFFERS = {};

	private final OffloadSession session;

	private final SessionContext context;

	private final StreamPriority priority;

	private final @Nullable SessionDeadline deadline;

	/** The session's tenant as the pool lends to it and the budget admits it. */
	private final TenantShares.Tenant tenant;

	private @Nullable PooledStream stream;

	/** The session's buffers in {@code buffers[0..bufferCount)}. */
	private Buffer[] buffers = NO_BUFFERS;

	private int bufferCount;

	/** The array the last launch's arguments were converted into. */
	private Object @Nullable [] launchArguments;

	/**
	 * Set when one of the session's buffers or events was closed: the next synchronize
	 * gives the closed ones back. A hint only; their own flags decide.
	 */
	private volatile boolean somethingClosed;

	/** The buffers and events closed since closed ones were last given back. */
	private volatile int closedCount;

	/** The bytes of the host buffers among them. */
	private volatile long closedHostBytes;

	/** Calls that enqueued on the stream, so that a later check sees whether any did. */
	private long enqueues;

	/** {@link #enqueues} when the last {@link #whenDone()} recorded its point. */
	private long enqueuesAtWhenDone = -1;

	private @Nullable List<StreamEvent> events;

	/** What integrations (tracing, templates) attached to the session. */
	private @Nullable Map<String, Object> attributes;

	volatile boolean closed;

	@Nullable Throwable failure;

	private boolean failureReported;

	/**
	 * Whether work was enqueued since the last synchronize, so that ending the session
	 * must wait for it.
	 */
	private boolean workPending;

	/**
	 * Whether the native stream was handed out: work may then be enqueued that the
	 * session does not see.
	 */
	private boolean unwrapped;

	/** The future of closeAsync or of the hand-off to the completion thread. */
	private @Nullable CompletableFuture<Void> completion;

	/** The device memory the budget admitted for this session, released when it ends. */
	private long memoryReserved;

	/** The device memory of the session's buffers, within {@link #memoryReserved}. */
	private long memoryDrawn;

	/** Callers blocked in synchronize or close, waiting for this session's work. */
	private volatile int awaiting;

	/**
	 * The future of the last {@link #whenDone()}: the session's work finishes in stream
	 * order, so while an earlier one is pending this one is too.
	 */
	private volatile @Nullable CompletableFuture<Void> lastWhenDone;

	/**
	 * Set when the session was closed for its caller and left to the completion thread to
	 * end.
	 */
	private boolean handedOff;

	SessionWork(OffloadSession session, SessionContext context, StreamPriority priority,
			@Nullable SessionDeadline deadline, TenantShares.Tenant tenant) {
		this.session = session;
		this.tenant = tenant;
		this.context = context;
		this.priority = priority;
		this.deadline = deadline;
	}

	/** Throws if the session was closed, naming what the caller tried. */
	void checkOpen(String operation) {
		if (this.closed) {
			throw new IllegalStateException("Session " + this.session.id() + " on device " + this.session.device().id()
					+ " is closed; cannot " + operation);
		}
	}

	boolean hasStream() {
		return this.stream != null;
	}

	/** The session's stream, borrowed on first use. */
	PooledStream stream() {
		PooledStream lent = this.stream;
		if (lent == null) {
			lent = this.context.streamPool.borrow(this.priority, this.deadline, this.session.id(),
					this.tenant.lending());
			this.stream = lent;
		}
		return lent;
	}

	/** The stream lent to this session, where the caller knows one is. */
	private PooledStream lent() {
		return Objects.requireNonNull(this.stream, "no stream is lent to this session");
	}

	/**
	 * Tells whether work was enqueued since the last synchronize.
	 */
	boolean hasPendingWork() {
		return this.workPending;
	}

	long reservedMemory() {
		return this.memoryReserved;
	}

	/**
	 * Has the budget admit {@code bytes} more than the session's buffers hold, waiting
	 * under the session's priority and deadline.
	 */
	void admit(long bytes) {
		long missing = this.memoryDrawn + bytes - this.memoryReserved;
		if (missing <= 0) {
			return;
		}
		if (this.somethingClosed && this.failure == null && this.stream != null) {
			if (this.context.memory.tryAcquireBudget(missing, this.tenant.memory())) {
				this.memoryReserved += missing;
				return;
			}
			if (holdsClosedDeviceMemory()) {
				// The budget is short while the session's own closed buffers wait for
				// its work (calls that were not waited for): they come back once that
				// work is done, which other sessions' releases would not bring about.
				reclaimClosed();
				missing = this.memoryDrawn + bytes - this.memoryReserved;
				if (missing <= 0) {
					return;
				}
			}
		}
		this.context.memory.acquireBudget(missing, this.priority == StreamPriority.HIGH,
				this.context.streamPool.borrowTimeoutNanos(this.priority), this.deadline, this.tenant.memory());
		this.memoryReserved += missing;
	}

	private boolean holdsClosedDeviceMemory() {
		Buffer[] owned = this.buffers;
		for (int i = 0; i < this.bufferCount; i++) {
			if (owned[i] instanceof DeviceBuffer buffer && buffer.isClosed()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Waits for the work enqueued so far and gives the closed buffers and events back. A
	 * failure of that work is recorded for the session's next synchronize or its end to
	 * report, and the closed buffers stay with the session.
	 */
	private void reclaimClosed() {
		try {
			awaitWork("its work (to give its closed buffers back)");
		}
		catch (RuntimeException ex) {
			if (this.handedOff) {
				// The deadline passed or the wait was interrupted: the session is closed.
				throw ex;
			}
			recordFailure(ex);
			return;
		}
		this.workPending = this.unwrapped;
		releaseClosed();
	}

	/**
	 * Allocates device memory in the order of the session's stream, within its
	 * reservation.
	 */
	NativeMemory allocateDevice(long bytes) {
		reuseClosed();
		long charged = Device.allocationSize(bytes);
		admit(charged);
		BackendStream onStream = stream().backend;
		// A new block is allocated in the stream's order: ending must wait for the
		// stream before the block can serve another stream.
		this.workPending = true;
		this.enqueues++;
		NativeMemory memory = this.context.acquireDeviceMemory(bytes, onStream);
		this.memoryDrawn += charged;
		return memory;
	}

	/**
	 * Enqueues a copy between buffers, staged through page-locked host memory when the
	 * source is of another device.
	 */
	void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
		if (src == null || dst == null) {
			throw new IllegalArgumentException("copy needs a source and a destination, was " + src + " -> " + dst);
		}
		Device device = this.context.device;
		NativeMemory to = dst.memoryFor(device, "the copy's destination");
		if (src.device() != device) {
			CrossDeviceCopy.copy(this.session, src, srcOffset, dst, to, dstOffset, bytes);
			return;
		}
		NativeMemory from = src.memoryFor(device, "the copy's source");
		src.checkRange(srcOffset, bytes, "the copy's source");
		dst.checkRange(dstOffset, bytes, "the copy's destination");
		if (bytes > 0) {
			enqueueCopy(from, srcOffset, to, dstOffset, bytes);
		}
	}

	/**
	 * Enqueues a copy between two memories this session's stream can reach.
	 */
	void enqueueCopy(NativeMemory from, long srcOffset, NativeMemory to, long dstOffset, long bytes) {
		// Spelled out rather than through enqueue(Runnable): a light request's copies
		// and launch stay free of a lambda's allocation between their driver calls.
		beginEnqueue();
		try {
			stream().backend.copy(from, srcOffset, to, dstOffset, bytes);
		}
		catch (RuntimeException ex) {
			throw enqueueFailed(ex);
		}
	}

	void fill(Buffer dst, long offset, long bytes, byte value) {
		if (dst == null) {
			throw new IllegalArgumentException("fill needs a buffer");
		}
		NativeMemory to = dst.memoryFor(this.context.device, "the fill");
		dst.checkRange(offset, bytes, "the fill");
		if (bytes > 0) {
			enqueue(() -> stream().backend.fill(to, offset, bytes, value));
		}
	}

	void launch(Kernel kernel, LaunchConfig config, Object[] args) {
		if (kernel == null || config == null) {
			throw new IllegalArgumentException("launch needs a kernel and a launch configuration");
		}
		if (kernel.device() != this.context.device) {
			throw new IllegalArgumentException(kernel + " is not loaded on device " + deviceId()
					+ "; load its module there with Device.loadModule");
		}
		// The backend reads the arguments during the call only: one array of the session
		// serves every launch of its length, so a launch allocates nothing here.
		// A null array is refused by the conversion, naming the kernel's parameters.
		int count = (args != null) ? args.length : 0;
		Object[] converted = this.launchArguments;
		if (converted == null || converted.length != count) {
			converted = new Object[count];
			this.launchArguments = converted;
		}
		try {
			kernel.toBackendArguments(args, converted);
			enqueueLaunch(kernel, config, converted);
		}
		finally {
			Arrays.fill(converted, null);
		}
	}

	private void enqueueLaunch(Kernel kernel, LaunchConfig config, Object[] converted) {
		beginEnqueue();
		try {
			stream().backend.launch(kernel.backendKernel(), config.gridX(), config.gridY(), config.gridZ(),
					config.blockX(), config.blockY(), config.blockZ(), config.sharedMemoryBytes(), converted);
		}
		catch (RuntimeException ex) {
			throw enqueueFailed(ex);
		}
	}

	<B extends Buffer> B own(B buffer) {
		Buffer[] owned = this.buffers;
		if (this.bufferCount == owned.length) {
			// A light request's few buffers fit without growing.
			owned = Arrays.copyOf(owned, Math.max(4, 2 * owned.length));
			this.buffers = owned;
		}
		owned[this.bufferCount++] = buffer;
		return buffer;
	}

	StreamEvent recordEvent() {
		BackendStream backendStream = stream().backend;
		StreamEvent event = new StreamEvent(this.session, this.context.completions.borrowEvent());
		if (this.events == null) {
			this.events = new ArrayList<>();
		}
		this.events.add(event);
		enqueue(() -> backendStream.record(event.backendEvent()));
		return event;
	}

	/**
	 * Runs a call that enqueues on the session's stream: its failure fails the session's
	 * work unless it is a refusal before anything was enqueued.
	 */
	void enqueue(Runnable call) {
		beginEnqueue();
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			throw enqueueFailed(ex);
		}
	}

	/** Counts a call about to enqueue on the session's stream. */
	private void beginEnqueue() {
		this.workPending = true;
		this.enqueues++;
	}

	/**
	 * Records the failure of a call that enqueues, unless it is a refusal before anything
	 * was enqueued.
	 * @return the failure, to be rethrown
	 */
	private RuntimeException enqueueFailed(RuntimeException ex) {
		if (this.stream != null && !(ex instanceof OffloadException && !(ex instanceof BackendException))) {
			recordFailure(ex);
			this.failureReported = true;
		}
		return ex;
	}

	/**
	 * Hands the session's stream to a call that enqueues on it (a captured flow's capture
	 * or replay), as the session's own operations do.
	 */
	<T> T onStream(Function<BackendStream, T> call) {
		Object[] result = new Object[1];
		enqueue(() -> result[0] = call.apply(stream().backend));
		@SuppressWarnings("unchecked")
		T typed = (T) result[0];
		return typed;
	}

	/**
	 * Hands the native stream out: libraries enqueue on it behind the session's back, so
	 * from now on ending always synchronizes.
	 */
	<T> T unwrap(Class<T> type) {
		BackendStream backend = stream().backend;
		T handle = backend.handle(type);
		this.unwrapped = true;
		this.workPending = true;
		if (handle == null) {
			throw new IllegalArgumentException("The " + this.context.device.backendName() + " backend's stream is a "
					+ backend.handle().getClass().getName() + ", not a " + type.getName());
		}
		return handle;
	}

	<T> CompletableFuture<T> withinDeadline(CompletableFuture<T> work) {
		SessionDeadline bound = this.deadline;
		if (bound == null) {
			return work;
		}
		return this.context.completions.withinDeadline(bound, work, (waited) -> {
			this.context.streamPool.sessionTimedOut();
			return new SessionTimeoutException(deviceId(), this.session.id(), "its work (asynchronous)",
					Duration.ofNanos(waited), bound.timeout());
		});
	}

	/** Read and written under the session's monitor, as its public methods hold it. */
	@Nullable Object attribute(String name) {
		return (this.attributes != null) ? this.attributes.get(name) : null;
	}

	void setAttribute(String name, @Nullable Object value) {
		if (this.attributes == null) {
			this.attributes = new ConcurrentHashMap<>();
		}
		if (value == null) {
			this.attributes.remove(name);
		}
		else {
			this.attributes.put(name, value);
		}
	}

	CompletableFuture<Void> whenDone() {
		if (this.failure != null) {
			return CompletableFuture.failedFuture(this.failure);
		}
		if (this.stream == null || !this.workPending) {
			return CompletableFuture.completedFuture(null);
		}
		BackendStream backendStream = this.stream.backend;
		CompletableFuture<Void> reached = this.context.completions
			.whenReached((event) -> enqueue(() -> backendStream.record(event)));
		this.enqueuesAtWhenDone = this.enqueues;
		// Read by isAwaitingWork: no dependent stage, so the future completes without an
		// executor task of its own.
		this.lastWhenDone = reached;
		return reached;
	}

	void synchronize() {
		if (this.stream == null) {
			return;
		}
		if (this.failure != null) {
			this.failureReported = true;
			throw this.context.completions.unchecked(this.failure);
		}
		try {
			awaitWork("its work (synchronize)");
		}
		catch (RuntimeException ex) {
			recordFailure(ex);
			this.failureReported = true;
			throw ex;
		}
		this.workPending = this.unwrapped;
		if (this.somethingClosed) {
			releaseClosed();
		}
	}

	/**
	 * Notes that one of the session's buffers or events was closed.
	 * @param hostBytes the size of a host buffer, 0 for anything else
	 */
	void closedSomething(long hostBytes) {
		this.somethingClosed = true;
		CLOSED_COUNT.incrementAndGet(this);
		if (hostBytes > 0) {
			CLOSED_HOST_BYTES.addAndGet(this, hostBytes);
		}
	}

	/**
	 * Before a new buffer: gives back the closed buffers and events if the work enqueued
	 * so far is known done (nothing enqueued since the last synchronize, or since a
	 * {@link #whenDone()} that completed), so that a request closing its buffers after
	 * its synchronize leaves their memory to the next one.
	 */
	void reuseClosed() {
		if (!this.somethingClosed || this.failure != null) {
			return;
		}
		if (workKnownDone()) {
			releaseClosed();
		}
		else if (this.stream != null && (this.closedCount > MemoryTuning.SESSION_CLOSED_MAX_COUNT
				|| this.closedHostBytes > MemoryTuning.SESSION_CLOSED_MAX_HOST_BYTES)) {
			// Calls that nothing waited for (runAsync() in a bound session) would
			// otherwise keep every closed buffer, and page-locked staging is not
			// budgeted.
			reclaimClosed();
		}
	}

	private boolean workKnownDone() {
		if (!this.workPending) {
			return true;
		}
		// Behind the session's back (a handed-out stream) work may follow the point
		// whenDone recorded: only a synchronize covers it.
		CompletableFuture<Void> reached = this.lastWhenDone;
		return !this.unwrapped && reached != null && this.enqueues == this.enqueuesAtWhenDone && reached.isDone()
				&& !reached.isCompletedExceptionally();
	}

	/**
	 * Gives back the buffers and events closed before this point, whose work the stream
	 * finished: neither can be used once closed, so all work on them was enqueued before.
	 * Device memory stays in the session's reservation, for the next buffer to draw.
	 */
	private void releaseClosed() {
		this.somethingClosed = false;
		this.closedCount = 0;
		this.closedHostBytes = 0;
		Buffer[] owned = this.buffers;
		int count = this.bufferCount;
		int kept = 0;
		int i = 0;
		try {
			for (; i < count; i++) {
				Buffer buffer = owned[i];
				if (!buffer.isClosed()) {
					owned[kept++] = buffer;
				}
				else {
					if (buffer instanceof DeviceBuffer) {
						this.memoryDrawn -= Device.allocationSize(buffer.size());
					}
					buffer.release(0);
				}
			}
		}
		finally {
			// A release that threw leaves its buffer out, as given back, and keeps those
			// after it.
			for (int rest = i + 1; rest < count; rest++) {
				owned[kept++] = owned[rest];
			}
			Arrays.fill(owned, kept, count, null);
			this.bufferCount = kept;
		}
		List<StreamEvent> recorded = this.events;
		if (recorded != null) {
			recorded.removeIf((event) -> {
				if (!event.isClosed()) {
					return false;
				}
				this.context.completions.releaseEvent(event.release());
				return true;
			});
		}
	}

	boolean isAwaitingWork() {
		CompletableFuture<Void> pending = this.lastWhenDone;
		return this.awaiting > 0 || (pending != null && !pending.isDone());
	}

	/**
	 * Waits for the work enqueued so far; with a deadline, through the completion thread
	 * so that the wait is bounded, and on expiry hands the session to that thread.
	 */
	private void awaitWork(String waitedFor) {
		AWAITING.incrementAndGet(this);
		try {
			waitForWork(waitedFor);
		}
		finally {
			AWAITING.decrementAndGet(this);
		}
	}

	private void waitForWork(String waitedFor) {
		BackendStream backend = lent().backend;
		if (this.deadline == null) {
			this.context.completions.awaitIdle(backend);
			return;
		}
		long start = System.nanoTime();
		try {
			if (!this.context.completions.awaitIdle(backend, this.deadline)) {
				SessionTimeoutException timeout = new SessionTimeoutException(deviceId(), this.session.id(), waitedFor,
						Duration.ofNanos(System.nanoTime() - start), this.deadline.timeout());
				this.context.streamPool.sessionTimedOut();
				handOff(timeout);
				throw timeout;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			OffloadException interrupted = new OffloadException("Interrupted while session " + this.session.id()
					+ " on device " + deviceId() + " waited for " + waitedFor, ex);
			handOff(interrupted);
			throw interrupted;
		}
	}

	/**
	 * Closes the session for its caller, who gets {@code reason}; the completion thread
	 * ends it (gives the stream back) when the work enqueued so far is done.
	 */
	private void handOff(RuntimeException reason) {
		this.closed = true;
		this.handedOff = true;
		if (this.failure == null) {
			this.failure = reason;
		}
		this.failureReported = true;
		this.completion = this.context.completions.handOff(this.session.id(), lent().backend, new End());
	}

	void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		Throwable result = this.failure;
		// After a refused call (not sticky) earlier work may still run: the wait for it
		// is the caller's, bounded by the deadline as any other.
		if (workMayRun()) {
			try {
				awaitWork("its work (close)");
			}
			catch (RuntimeException ex) {
				if (this.handedOff) {
					// The deadline passed: the completion thread ends the session once
					// its work is done.
					throw ex;
				}
				result = recordFailure(ex);
			}
		}
		end(result, result);
		if (result != null && !this.failureReported) {
			this.failureReported = true;
			throw this.context.completions.unchecked(result);
		}
	}

	CompletableFuture<Void> closeAsync() {
		if (this.closed) {
			return (this.completion != null) ? this.completion : CompletableFuture.completedFuture(null);
		}
		this.closed = true;
		// A platform thread that joins the future may wait for the work in the driver, as
		// close() does, and end the session itself. After a refused call (not sticky)
		// earlier work may still run: the completion thread waits for it, not the caller.
		boolean pending = workMayRun();
		CompletableFuture<Void> closing = this.context.completions.closeAsync(this.session.id(),
				pending ? lent().backend : null, new End());
		this.completion = closing;
		return closing;
	}

	private void end(@Nullable Throwable result, @Nullable Throwable streamFailure) {
		try {
			try {
				if (this.stream != null) {
					returnStream(streamFailure);
				}
				if (this.events != null) {
					this.events.forEach((event) -> this.context.completions.releaseEvent(event.release()));
				}
			}
			finally {
				// Whatever went wrong giving the stream or an event back, the buffers go
				// back too.
				// The reservation, given back next, is the cache's to count as free.
				long reserved = this.memoryReserved;
				Buffer[] owned = this.buffers;
				for (int i = 0; i < this.bufferCount; i++) {
					owned[i].release(reserved);
				}
			}
		}
		finally {
			long reserved = this.memoryReserved;
			this.memoryReserved = 0;
			this.memoryDrawn = 0;
			if (reserved > 0) {
				this.context.memory.releaseBudget(reserved, this.tenant.memory());
			}
			this.context.ended(this.session, result);
		}
	}

	private void returnStream(@Nullable Throwable result) {
		PooledStream lent = lent();
		if (result == null) {
			this.context.streamPool.release(lent);
			return;
		}
		if (!isSticky(result)) {
			// Earlier work may still run on a stream whose later call failed: let it
			// finish before the stream and the buffers are given back.
			try {
				this.context.completions.awaitIdle(lent.backend);
			}
			catch (RuntimeException ignored) {
				// The failure is already recorded.
			}
		}
		this.context.streamPool.discard(lent, result);
	}

	/**
	 * Tells whether work enqueued on the session's stream may still run: some was
	 * enqueued since the last synchronize, and no sticky error ended it (a refused call
	 * behind it leaves it running).
	 */
	private boolean workMayRun() {
		return this.stream != null && this.workPending && !isSticky(this.failure);
	}

	private static boolean isSticky(@Nullable Throwable failure) {
		return failure instanceof BackendException backendError && backendError.isSticky();
	}

	private Throwable recordFailure(Throwable ex) {
		if (this.failure == null) {
			this.failure = ex;
		}
		this.context.device.failIfSticky(ex);
		return this.failure;
	}

	private int deviceId() {
		return this.context.device.id();
	}

	/**
	 * How the completion engine ends this session once its work is done: the work's
	 * failure is recorded (a session handed off after its deadline has its timeout as the
	 * outcome; its stream is fine).
	 */
	private final class End implements Completions.SessionEnd {

		@Override
		public @Nullable Throwable outcome(@Nullable Throwable workFailure) {
			return (workFailure != null) ? recordFailure(workFailure) : SessionWork.this.failure;
		}

		@Override
		public void end(@Nullable Throwable outcome, @Nullable Throwable streamFailure) {
			SessionWork.this.end(outcome, streamFailure);
		}

	}

}
