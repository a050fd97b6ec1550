package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A unit of work on one device: the stream it borrows on its first operation is its own
 * until it ends, so {@link #synchronize()} waits for this session's work only (the LLVM
 * offload runtime's {@code async_info}).
 * <p>
 * Copies, fills, launches and event operations are asynchronous. {@link #close()} waits
 * for the work and gives the stream back; {@link #closeAsync()} gives it back when the
 * work is done, without blocking a thread. A session whose work failed has its stream
 * destroyed, never lent again. A session is used by one thread at a time; it may be
 * handed from thread to thread.
 * <p>
 * The dependent stages of the futures of {@link #closeAsync()} and {@link #whenDone()}
 * never run on the device's completion thread: they run on the registry's
 * {@linkplain DeviceRegistry.Builder#completionExecutor completion executor}, or on a
 * thread that waits in {@code join()} or {@code get()} for the future or for one of its
 * dependent stages, which is woken by the completion thread directly and runs the stages
 * it waits for itself.
 * <p>
 * A session that is never closed keeps its stream and buffers for ever: always close it,
 * as with try-with-resources. Using it after close throws {@link IllegalStateException};
 * closing twice is harmless.
 * <p>
 * A session opened with a timeout has a deadline (its opening plus the timeout) that
 * bounds every wait of its caller: for a stream, and in {@link #synchronize()} and
 * {@link #close()}. When it passes, the caller gets a {@link SessionTimeoutException} at
 * once, the session is closed, and the device's completion thread gives its stream back
 * when the work enqueued so far is done (a GPU cannot take queued work back).
 * Asynchronous callers bound their futures with {@link #withinDeadline}.
 * <p>
 * On a virtual thread (Java 21+), {@link #synchronize()} and {@link #close()} park the
 * thread until the device's completion thread sees the stream idle, instead of blocking
 * in the driver, which would hold the carrier thread for the whole wait; a platform
 * thread synchronizes in the driver.
 */
public final class OffloadSession implements AutoCloseable {

	/** The machine's processors: more sessions open than these fill them. */
	private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

	/**
	 * How many sessions closed asynchronously the completion thread finishes, and wakes
	 * the joiners of, before joiners finish their own: half the processors. On the H200
	 * (16 processors), a lone joiner woken by the completion thread took 1.14 times a
	 * synchronous close, one that finished its own session 1.24 times (the completion
	 * thread woken for nothing, and querying the same stream); 64 joiners woken one after
	 * another took 1.39 to 1.97 times raw JCuda's wall time, 64 that finished their own
	 * 1.28 times, and 1.09 times once they waited for a session the completion thread was
	 * querying instead of leaving it to it.
	 */
	static final int JOINERS_WOKEN = Math.max(1, PROCESSORS / 2);

	/**
	 * How long a joiner waits for the completion thread to give back a session it queries
	 * before it leaves the session to it: a query takes about a microsecond.
	 */
	private static final long JOINER_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

	private static final AtomicIntegerFieldUpdater<OffloadSession> ASYNC_STATE = AtomicIntegerFieldUpdater
		.newUpdater(OffloadSession.class, "asyncState");

	/** {@link #asyncState}: nobody touches the stream. */
	private static final int OPEN = 0;

	/** {@link #asyncState}: the completion thread queries the stream. */
	private static final int POLLING = 1;

	/**
	 * {@link #asyncState}: a joiner waits for the stream's work and finishes the session.
	 */
	private static final int HELPING = 2;

	/** {@link #asyncState}: finished; the stream may belong to another session. */
	private static final int FINISHED = 3;

	private static final AtomicIntegerFieldUpdater<OffloadSession> AWAITING = AtomicIntegerFieldUpdater
		.newUpdater(OffloadSession.class, "awaiting");

	private final long id = SessionIds.next();

	private final Device device;

	private final StreamPriority priority;

	private final @Nullable String tenant;

	private final long openedNanos;

	private final @Nullable SessionDeadline deadline;

	private @Nullable PooledStream stream;

	private @Nullable List<Buffer> buffers;

	private @Nullable List<StreamEvent> events;

	private @Nullable Map<String, Object> attributes;

	private volatile boolean closed;

	private @Nullable Throwable failure;

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

	private @Nullable CompletionFuture<Void> completion;

	/**
	 * Who may touch the stream of a session closed with {@link #closeAsync()}: the
	 * completion thread while it queries it ({@link #POLLING}), a joiner that waits for
	 * the work and finishes the session ({@link #HELPING}), nobody once it is
	 * {@link #FINISHED}. Each takes it from {@link #OPEN} by compare-and-set, so that
	 * neither touches a stream the other gave back (lent again, or destroyed).
	 */
	private volatile int asyncState;

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

	OffloadSession(Device device, StreamPriority priority, @Nullable Duration timeout, @Nullable String tenant) {
		this.device = device;
		this.priority = priority;
		this.tenant = tenant;
		this.deadline = (timeout != null) ? new SessionDeadline(timeout) : null;
		// The clock costs about 100 ns on some virtual machines: read it only when a
		// listener wants durations.
		this.openedNanos = device.isListened() ? System.nanoTime() : 0;
	}

	/**
	 * Returns the session's id, unique in this JVM.
	 * @return the id
	 */
	public long id() {
		return this.id;
	}

	/**
	 * Returns the session's device.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Returns the priority class of the session's stream.
	 * @return the priority
	 */
	public StreamPriority priority() {
		return this.priority;
	}

	/**
	 * Returns the tenant the session works for, whose share of the device its waits are
	 * served by ({@link TenantPolicy}).
	 * @return the tenant, or {@code null} if it was opened without one (it is then served
	 * as {@link TenantPolicy#DEFAULT_TENANT})
	 */
	public @Nullable String tenant() {
		return this.tenant;
	}

	/**
	 * Returns the session's timeout, counted from its opening.
	 * @return the timeout, or {@code null} if its caller's waits are unbounded
	 */
	public @Nullable Duration timeout() {
		return (this.deadline != null) ? this.deadline.timeout() : null;
	}

	/**
	 * Tells whether the session was closed.
	 * @return {@code true} after {@link #close()} or {@link #closeAsync()}
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Tells whether the session has borrowed its stream yet.
	 * @return {@code true} after its first operation, until it ends
	 */
	public boolean hasStream() {
		return this.stream != null;
	}

	/**
	 * Returns the id of the session's stream within its pool, borrowing it if needed.
	 * @return the stream's id
	 */
	public int streamId() {
		return stream().id;
	}

	/**
	 * Returns the failure of the session's work seen so far.
	 * @return the failure, or {@code null}
	 */
	public @Nullable Throwable failure() {
		return this.failure;
	}

	long openedNanos() {
		return this.openedNanos;
	}

	/**
	 * Returns an attribute that integrations (tracing, templates) attached to the
	 * session.
	 * @param name the attribute's name
	 * @return the value, or {@code null}
	 */
	public synchronized @Nullable Object getAttribute(String name) {
		return (this.attributes != null) ? this.attributes.get(name) : null;
	}

	/**
	 * Attaches an attribute to the session.
	 * @param name the attribute's name
	 * @param value the value, or {@code null} to remove it
	 */
	public synchronized void setAttribute(String name, @Nullable Object value) {
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

	/**
	 * Allocates device memory that the session gives back when its work is done. The
	 * memory is allocated in the order of the session's stream (borrowed now if it was
	 * not) and counts against the device's memory budget until the session ends; beyond
	 * what {@link #reserveMemory(long)} reserved, the session waits for the budget under
	 * its priority and deadline.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 * @throws MemoryBudgetExceededException if the budget did not admit the memory before
	 * the session's deadline or the borrow timeout, or is smaller than it
	 * @throws DeviceOutOfMemoryException if the device had no memory, even after Offload
	 * gave back what it cached (retryable)
	 */
	public DeviceBuffer allocate(long bytes) {
		checkOpen("allocate");
		long charged = Device.allocationSize(bytes);
		admit(charged);
		BackendStream onStream = stream().backend;
		// A new block is allocated in the stream's order: ending must wait for the
		// stream before the block can serve another stream.
		this.workPending = true;
		DeviceBuffer buffer = new DeviceBuffer(this.device, this.device.acquireDeviceMemory(bytes, onStream), bytes,
				this);
		this.memoryDrawn += charged;
		own(buffer);
		return buffer;
	}

	/**
	 * Reserves device memory in the device's budget for buffers the session will
	 * allocate, so that they do not wait one by one: waits, under the session's priority
	 * and deadline, until the budget admits {@code bytes} more than the session's buffers
	 * hold now. Each buffer takes its {@linkplain Device#allocationSize(long) allocation
	 * size} from the reservation. The reservation is given back when the session ends.
	 * @param bytes the memory the session's coming buffers take, at least 0
	 * @return this session
	 * @throws MemoryBudgetExceededException if the budget did not admit the memory before
	 * the session's deadline or the borrow timeout, or at once if it is larger than the
	 * whole budget
	 */
	public OffloadSession reserveMemory(long bytes) {
		checkOpen("reserveMemory");
		if (bytes < 0) {
			throw new IllegalArgumentException("bytes must be at least 0, was " + bytes);
		}
		admit(bytes);
		return this;
	}

	/**
	 * Returns the device memory the budget admitted for this session.
	 * @return the reserved bytes, including those its buffers use
	 */
	public long reservedMemory() {
		return this.memoryReserved;
	}

	private void admit(long bytes) {
		long missing = this.memoryDrawn + bytes - this.memoryReserved;
		if (missing > 0) {
			this.device.memory()
				.acquireBudget(missing, this.priority, this.device.streamPool().borrowTimeoutNanos(this.priority),
						this.deadline);
			this.memoryReserved += missing;
		}
	}

	/**
	 * Allocates page-locked host memory that the session gives back when its work is
	 * done.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 * @throws HostStagingOutOfMemoryException if the host had no page-locked memory for
	 * the staging chunk it needed (retryable)
	 */
	public HostBuffer allocateHost(long bytes) {
		checkOpen("allocateHost");
		HostBuffer buffer = new HostBuffer(this.device, this.device.acquireHostMemory(bytes), bytes, this);
		own(buffer);
		return buffer;
	}

	/**
	 * Allocates a host buffer holding {@code values}.
	 * @param values the floats
	 * @return the buffer, owned by the session
	 */
	public HostBuffer hostBuffer(float[] values) {
		return allocateHost(Math.max(1, (long) values.length * Float.BYTES)).putFloats(0, values);
	}

	/**
	 * Allocates a host buffer holding {@code values}.
	 * @param values the doubles
	 * @return the buffer, owned by the session
	 */
	public HostBuffer hostBuffer(double[] values) {
		return allocateHost(Math.max(1, (long) values.length * Double.BYTES)).putDoubles(0, values);
	}

	void own(Buffer buffer) {
		if (this.buffers == null) {
			this.buffers = new ArrayList<>();
		}
		this.buffers.add(buffer);
	}

	/**
	 * Enqueues copying all of {@code src} to the start of {@code dst}.
	 * @param src the source (host or device)
	 * @param dst the destination, at least as large
	 */
	public void copy(Buffer src, Buffer dst) {
		if (src == null || dst == null) {
			throw new IllegalArgumentException("copy needs a source and a destination, was " + src + " -> " + dst);
		}
		copy(src, 0, dst, 0, src.size());
	}

	/**
	 * Enqueues copying {@code bytes} bytes between buffers. Both are normally of this
	 * session's device; a source of another device is staged through page-locked host
	 * memory of its device: a short session there waits for the work this session
	 * enqueued so far (so an event this session waits for also holds the staging back),
	 * copies the range out, and is waited for on the calling thread; the copy into
	 * {@code dst} is then enqueued here.
	 * @param src the source (host or device, of any device of the registry)
	 * @param srcOffset the offset in the source
	 * @param dst the destination (host or device)
	 * @param dstOffset the offset in the destination
	 * @param bytes the number of bytes
	 * @throws IllegalArgumentException if a range is outside its buffer, before anything
	 * is enqueued
	 */
	public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
		checkOpen("copy");
		if (src == null || dst == null) {
			throw new IllegalArgumentException("copy needs a source and a destination, was " + src + " -> " + dst);
		}
		var to = dst.memoryFor(this.device, "the copy's destination");
		if (src.device() != this.device) {
			CrossDeviceCopy.copy(this, src, srcOffset, dst, to, dstOffset, bytes);
			return;
		}
		var from = src.memoryFor(this.device, "the copy's source");
		src.checkRange(srcOffset, bytes, "the copy's source");
		dst.checkRange(dstOffset, bytes, "the copy's destination");
		if (bytes == 0) {
			return;
		}
		enqueueCopy(from, srcOffset, to, dstOffset, bytes);
	}

	/**
	 * Enqueues a copy between two memories this session's stream can reach.
	 */
	void enqueueCopy(NativeMemory from, long srcOffset, NativeMemory to, long dstOffset, long bytes) {
		enqueue(() -> stream().backend.copy(from, srcOffset, to, dstOffset, bytes));
	}

	/**
	 * Tells whether work was enqueued since the last synchronize.
	 */
	boolean hasPendingWork() {
		return this.workPending;
	}

	/**
	 * Enqueues setting every byte of {@code dst} to {@code value}.
	 * @param dst the buffer
	 * @param value the byte value
	 */
	public void fill(Buffer dst, byte value) {
		if (dst == null) {
			throw new IllegalArgumentException("fill needs a buffer");
		}
		fill(dst, 0, dst.size(), value);
	}

	/**
	 * Enqueues setting {@code bytes} bytes of {@code dst} from {@code offset} to
	 * {@code value}.
	 * @param dst the buffer
	 * @param offset the first byte
	 * @param bytes the number of bytes
	 * @param value the byte value
	 */
	public void fill(Buffer dst, long offset, long bytes, byte value) {
		checkOpen("fill");
		if (dst == null) {
			throw new IllegalArgumentException("fill needs a buffer");
		}
		var to = dst.memoryFor(this.device, "the fill");
		dst.checkRange(offset, bytes, "the fill");
		if (bytes == 0) {
			return;
		}
		enqueue(() -> stream().backend.fill(to, offset, bytes, value));
	}

	/**
	 * Enqueues a kernel launch, after checking the arguments against the kernel's
	 * parameters.
	 * @param kernel a kernel loaded on this session's device
	 * @param config the grid, block and shared memory sizes
	 * @param args one argument per parameter: {@link Integer}, {@link Long},
	 * {@link Float}, {@link Double} or {@link DeviceBuffer}
	 * @throws IllegalArgumentException if an argument does not fit, before anything is
	 * enqueued
	 */
	public void launch(Kernel kernel, LaunchConfig config, Object... args) {
		checkOpen("launch");
		if (kernel == null || config == null) {
			throw new IllegalArgumentException("launch needs a kernel and a launch configuration");
		}
		if (kernel.device() != this.device) {
			throw new IllegalArgumentException(kernel + " is not loaded on device " + this.device.id()
					+ "; load its module there with Device.loadModule");
		}
		Object[] converted = kernel.toBackendArguments(args);
		enqueue(() -> stream().backend.launch(kernel.backendKernel(), config.gridX(), config.gridY(), config.gridZ(),
				config.blockX(), config.blockY(), config.blockZ(), config.sharedMemoryBytes(), converted));
	}

	/**
	 * Enqueues a launch of a kernel named independently of the device, loading its module
	 * on this session's device the first time.
	 * @param kernel the kernel's module and name
	 * @param config the grid, block and shared memory sizes
	 * @param args one argument per parameter, as for
	 * {@link #launch(Kernel, LaunchConfig, Object...)}
	 * @throws IllegalArgumentException if an argument does not fit, before anything is
	 * enqueued
	 */
	public void launch(KernelRef kernel, LaunchConfig config, Object... args) {
		checkOpen("launch");
		if (kernel == null) {
			throw new IllegalArgumentException("launch needs a kernel and a launch configuration");
		}
		launch(this.device.kernel(kernel), config, args);
	}

	/**
	 * Calls a library that works on the session's stream (cuBLAS through
	 * {@code dev.offload.blas.Blas}), borrowing the stream if needed: the library's
	 * handle on that stream is opened the first time (it stays with the pooled stream, so
	 * later sessions reuse it), then {@code call} enqueues the work, which belongs to the
	 * session like its copies and launches: {@link #synchronize()} and {@link #close()}
	 * wait for it, and its failure fails the session's work (a sticky one, the device).
	 * The call is counted in {@link Device#libraryStatistics} and reported to the
	 * device's listener.
	 * @param <H> the library's handle type
	 * @param library the library
	 * @param operation the operation's name, for meters and errors (e.g. {@code sgemm})
	 * @param call enqueues the work on the handle
	 * @throws BackendException if the library or the backend refused the call
	 */
	public <H> void callLibrary(StreamLibrary<H> library, String operation, StreamLibrary.Call<H> call) {
		checkOpen(operation);
		if (library == null || call == null) {
			throw new IllegalArgumentException("callLibrary needs a library and a call");
		}
		long start = this.device.isListened() ? System.nanoTime() : 0;
		Throwable failed = null;
		try {
			PooledStream lent = stream();
			LibraryStream view = new LibraryStream(this, lent.backend);
			H handle;
			try {
				handle = this.device.libraryHandles().handle(library, lent, view);
			}
			catch (BackendException ex) {
				this.device.failIfSticky(ex);
				throw ex;
			}
			// Checks of the call's operands throw before anything is enqueued; the work
			// itself goes through LibraryStream.call, as the session's own operations.
			call.enqueue(handle, view);
		}
		catch (RuntimeException | Error ex) {
			failed = ex;
			throw ex;
		}
		finally {
			this.device.libraryHandles().called(library, failed != null);
			if (start != 0) {
				this.device.listener()
					.libraryCalled(this, library.name(), operation, System.nanoTime() - start, failed);
			}
		}
	}

	/**
	 * Records an event after the work enqueued so far; valid until this session ends.
	 * @return the event
	 */
	public StreamEvent recordEvent() {
		checkOpen("recordEvent");
		BackendStream backendStream = stream().backend;
		StreamEvent event = new StreamEvent(this, this.device.eventPool().borrow());
		if (this.events == null) {
			this.events = new ArrayList<>();
		}
		this.events.add(event);
		enqueue(() -> backendStream.record(event.backendEvent()));
		return event;
	}

	/**
	 * Makes the work enqueued after this call wait for {@code event} (recorded by any
	 * session, on any device).
	 * @param event the event
	 */
	public void waitFor(StreamEvent event) {
		checkOpen("waitFor");
		if (event == null) {
			throw new IllegalArgumentException("waitFor needs an event");
		}
		var backendEvent = event.backendEvent();
		enqueue(() -> stream().backend.waitFor(backendEvent));
	}

	/**
	 * Returns a future that completes once the work enqueued on this session so far is
	 * done, without ending the session and without blocking a thread: the device's
	 * completion thread watches an event recorded now, on the session's own stream (no
	 * second stream is borrowed). It completes at once if nothing was enqueued since the
	 * last synchronize, and fails with the work's failure if that work failed (the
	 * session's owner sees the failure too when it ends the session).
	 * @return the future, whose dependent stages run on the registry's completion
	 * executor
	 * @throws IllegalStateException if the session is closed
	 */
	public CompletableFuture<Void> whenDone() {
		checkOpen("whenDone");
		if (this.failure != null) {
			return CompletableFuture.failedFuture(this.failure);
		}
		if (this.stream == null || !this.workPending) {
			return CompletableFuture.completedFuture(null);
		}
		BackendStream backendStream = this.stream.backend;
		BackendEvent event = this.device.eventPool().borrow();
		try {
			enqueue(() -> backendStream.record(event));
		}
		catch (RuntimeException ex) {
			this.device.eventPool().release(event);
			throw ex;
		}
		CompletionFuture<Void> reached = this.device.newCompletionFuture();
		// Read by isAwaitingWork: no dependent stage, so the future completes without an
		// executor task of its own.
		this.lastWhenDone = reached;
		this.device.watch(event, reached);
		return reached;
	}

	/**
	 * Blocks until the work this session enqueued is done; other sessions' work is not
	 * waited for.
	 * @throws BackendException if the work failed (the stream is discarded when the
	 * session ends)
	 */
	public void synchronize() {
		checkOpen("synchronize");
		if (this.stream == null) {
			return;
		}
		if (this.failure != null) {
			this.failureReported = true;
			throw SessionWaits.asRuntime(this.failure);
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
			SessionWaits.awaitIdle(this.device, backend);
			return;
		}
		long start = System.nanoTime();
		try {
			if (!SessionWaits.awaitIdle(this.device, backend, this.deadline)) {
				throw expire(waitedFor, start);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			OffloadException interrupted = new OffloadException("Interrupted while session " + this.id + " on device "
					+ this.device.id() + " waited for " + waitedFor, ex);
			handOff(interrupted);
			throw interrupted;
		}
	}

	private SessionTimeoutException expire(String waitedFor, long start) {
		SessionTimeoutException timeout = new SessionTimeoutException(this.device.id(), this.id, waitedFor,
				Duration.ofNanos(System.nanoTime() - start), Objects.requireNonNull(this.deadline).timeout());
		this.device.streamPool().sessionTimedOut();
		handOff(timeout);
		return timeout;
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
		this.completion = this.device.newCompletionFuture();
		this.device.completionPoller().submit(new CloseTask());
	}

	/**
	 * Returns the session's native stream, borrowing it if needed, so that other CUDA
	 * libraries can enqueue work on it ({@code jcuda.driver.CUstream} on CUDA).
	 * @param <T> the handle's type
	 * @param type the expected type of the handle
	 * @return the handle
	 * @throws IllegalArgumentException if the backend's handle is not a {@code type}
	 */
	public <T> T unwrap(Class<T> type) {
		checkOpen("unwrap");
		BackendStream backend = stream().backend;
		T handle = backend.handle(type);
		// Libraries enqueue on the native stream behind the session's back: from now on,
		// ending always synchronizes.
		this.unwrapped = true;
		this.workPending = true;
		if (handle == null) {
			throw new IllegalArgumentException("The " + this.device.backendName() + " backend's stream is a "
					+ backend.handle().getClass().getName() + ", not a " + type.getName());
		}
		return handle;
	}

	/**
	 * Waits for the session's work, gives its stream back (or discards it if the work
	 * failed) and its buffers and events. Closing twice is harmless. A session whose work
	 * was all waited for by {@link #synchronize()} (nothing enqueued since, the native
	 * stream never {@linkplain #unwrap unwrapped}) is not synchronized again.
	 * @throws BackendException if the work failed and no earlier call reported it
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		Throwable result = this.failure;
		if (this.stream != null && result == null && this.workPending) {
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
		end(result);
		if (result != null && !this.failureReported) {
			this.failureReported = true;
			throw SessionWaits.asRuntime(result);
		}
	}

	/**
	 * Closes the session without blocking: the future completes when its work is done and
	 * its stream is back in the pool, or fails with the work's failure (the stream is
	 * then discarded). The device's completion thread sees the work done and wakes the
	 * threads waiting in {@code join()} or {@code get()} itself; the future's dependent
	 * stages run on the registry's completion executor, never on the completion thread
	 * (they may block without delaying other completions). With no work pending, it
	 * completes at once on the calling thread.
	 * @return the completion; the same future if called again
	 */
	public CompletableFuture<Void> closeAsync() {
		if (this.closed) {
			return (this.completion != null) ? this.completion : CompletableFuture.completedFuture(null);
		}
		this.closed = true;
		this.completion = this.device.newCompletionFuture();
		if (this.stream == null || this.failure != null || !this.workPending) {
			finish(this.failure, this.failure, false);
		}
		else {
			// A platform thread that joins the future may wait for the work in the
			// driver, as close() does, and finish the session itself (see
			// finishForJoiner).
			this.completion.helpWith(this::finishForJoiner);
			this.device.completionPoller().submit(new CloseTask());
		}
		return this.completion;
	}

	/**
	 * Tells whether someone waits for this session's work now: a thread in
	 * {@link #synchronize()} or {@link #close()}, or a pending {@link #whenDone()}
	 * future. A session open for long while its work runs or queues is busy, not
	 * forgotten; leak detection asks. Safe to call from any thread.
	 * @return {@code true} while its work is awaited
	 */
	public boolean isAwaitingWork() {
		CompletableFuture<Void> pending = this.lastWhenDone;
		return this.awaiting > 0 || (pending != null && !pending.isDone());
	}

	/**
	 * Bounds asynchronous work of this session by its deadline, as {@link #close()}
	 * bounds a synchronous wait: the future returned completes with {@code work}'s
	 * outcome, or fails with a {@link SessionTimeoutException} (counted in the pool's
	 * {@code sessionTimeouts}) once the deadline passes first. The work itself goes on; a
	 * session closed with {@link #closeAsync()} still gives its stream back when its work
	 * ends. The template's {@code submit} and {@code runAsync} and {@code @Offload}
	 * methods that return a stage bound their futures with it. A timed-out future
	 * completes on the registry's completion executor.
	 * @param <T> the work's result type
	 * @param work the future of the session's work, such as {@link #closeAsync()}'s
	 * @return {@code work} itself if the session has no timeout, else a future bounded by
	 * the deadline
	 */
	public <T> CompletableFuture<T> withinDeadline(CompletableFuture<T> work) {
		return (this.deadline != null) ? AsyncDeadline.bound(this, this.deadline, work) : work;
	}

	/**
	 * Called by the completion thread: finishes the session if its work is done, unless a
	 * joiner does.
	 * @return {@code true} when finished (here or by the joiner), {@code false} to poll
	 * again
	 */
	boolean pollCompletion() {
		if (!ASYNC_STATE.compareAndSet(this, OPEN, POLLING)) {
			// A joiner waits for the work and finishes the session, or has.
			return this.asyncState == FINISHED;
		}
		return finishIfDone(lent(), null);
	}

	/**
	 * With the session taken ({@link #POLLING} or {@link #HELPING}): finishes it if its
	 * work is done (or failed), else gives it back ({@link #OPEN}) for the completion
	 * thread to watch. The completion thread settles the future and has it published on
	 * the completion executor; a joiner waits for the work in the driver first and
	 * completes the future on its own thread, where it waits for it.
	 * @param lent the session's stream
	 * @param joined for a joiner, the future it waits for (it leaves once that is done
	 * otherwise, the work still running); {@code null} for the completion thread
	 * @return whether the session was finished
	 */
	private boolean finishIfDone(PooledStream lent, @Nullable CompletableFuture<?> joined) {
		boolean joiner = joined != null;
		boolean done;
		RuntimeException failure = null;
		try {
			if (joined != null) {
				this.device.joinerInDriver();
				try {
					done = awaitWorkUnlessDone(lent, joined);
				}
				finally {
					this.device.joinerLeftDriver();
				}
			}
			else {
				done = lent.backend.query();
			}
		}
		catch (RuntimeException ex) {
			failure = ex;
			done = true;
		}
		if (!done) {
			// The completion thread watches the work again (its task stays pending while
			// a joiner helps) and finishes the session.
			this.asyncState = OPEN;
			return false;
		}
		this.asyncState = FINISHED;
		if (failure != null) {
			finish(recordFailure(failure), failure, !joiner);
		}
		else {
			// A session handed off after its deadline has its timeout as the outcome; its
			// stream is fine.
			finish(this.failure, null, !joiner);
		}
		return true;
	}

	/**
	 * Called by a platform thread in {@code join()} of the future of
	 * {@link #closeAsync()}: while the completion thread has more than
	 * {@link #JOINERS_WOKEN} sessions to watch, and would wake their joiners one after
	 * another, or while more sessions are open on the device than the machine has
	 * processors (a joiner waiting actively for the completion thread would take a
	 * processor from their threads), takes the session from it, waits for the work itself
	 * ({@link #awaitWorkUnlessDone}; it gives the session back if the future it joins is
	 * done otherwise first) and finishes the session, completing its future on this
	 * thread. Otherwise the joiner is woken by the completion thread, which costs a lone
	 * joiner less, unless the work is still running once the joiner has waited briefly
	 * ({@code late}) and fewer than {@link #JOINERS_WOKEN} joiners wait in the driver:
	 * the completion thread then watches it with pauses of up to
	 * {@link CompletionPoller#MAX_PARK_NANOS}, which the joiner, waiting in the driver,
	 * does not pay. While the completion thread queries the stream (one call), the joiner
	 * waits for it to give the session back, up to {@link #JOINER_SPIN_NANOS}. Not on a
	 * fork/join pool's thread (the completion executor's, say), where {@code join()}
	 * blocks through the pool's managed blocking.
	 */
	private void finishForJoiner(boolean late, CompletableFuture<?> joined) {
		PooledStream lent = this.stream;
		if (lent == null || Thread.currentThread() instanceof ForkJoinWorkerThread) {
			return;
		}
		// Early, only to spare the completion thread, or when the sessions' threads fill
		// the processors; late, only while the joiners waiting in the driver (each a
		// spinning thread) leave the processors room.
		boolean declined = late ? this.device.joinersInDriver() >= JOINERS_WOKEN
				: this.device.pendingCompletions() <= JOINERS_WOKEN && this.device.activeSessions() <= PROCESSORS;
		if (declined) {
			return;
		}
		long start = 0;
		while (true) {
			int state = this.asyncState;
			if (state == OPEN) {
				if (ASYNC_STATE.compareAndSet(this, OPEN, HELPING)) {
					finishIfDone(lent, joined);
					return;
				}
			}
			else if (state != POLLING) {
				// Another joiner finishes it, or it is finished.
				return;
			}
			else if (start == 0) {
				start = System.nanoTime();
			}
			else if (System.nanoTime() - start > JOINER_SPIN_NANOS) {
				return;
			}
			Thread.onSpinWait();
		}
	}

	/**
	 * A joiner's wait for the session's work, which it leaves as soon as the future it
	 * waits for is done otherwise (its own timeout, a cancellation, a completion from
	 * outside): a driver's synchronize could not be left, so it queries the stream
	 * between spin waits, as the driver's synchronize spins on a processor of its own
	 * (the context's default scheduling while the processors outnumber the contexts).
	 * Where the device's work runs on this machine's processors (the host backend), which
	 * a spinning joiner would take from it, the joiner parks until the completion thread
	 * sees the stream idle or the future is done.
	 * @return whether the work is done; {@code false} if the joiner left it running
	 * @throws RuntimeException the work's failure
	 */
	private boolean awaitWorkUnlessDone(PooledStream lent, CompletableFuture<?> joined) {
		BackendStream backend = lent.backend;
		if (this.device.runsWorkOnHostProcessors()) {
			return SessionWaits.awaitIdleUnless(this.device, backend::query, completion().outcomeOr(joined));
		}
		while (!backend.query()) {
			if (joined.isDone()) {
				return false;
			}
			Thread.onSpinWait();
		}
		return true;
	}

	/**
	 * Called by the completion thread when the device shut down before this session's
	 * work was seen done: the future fails, and the stream stays lent (it is never
	 * destroyed under running work). A session a joiner is finishing is left to it.
	 */
	private void abandon(String reason) {
		if (!ASYNC_STATE.compareAndSet(this, OPEN, FINISHED)) {
			return;
		}
		this.failureReported = true;
		this.device.completionPoller()
			.complete(completion(), new StreamPoolClosedException(
					"Session " + this.id + " on device " + this.device.id() + " was " + reason));
	}

	/**
	 * Ends the session and completes its future: with {@code publishOnExecutor}, settled
	 * on this thread and published on the completion executor (the completion thread, and
	 * a joiner that finished the session, run no dependent stage), else completed on this
	 * thread.
	 */
	private void finish(@Nullable Throwable result, @Nullable Throwable streamFailure, boolean publishOnExecutor) {
		try {
			end(result, streamFailure);
		}
		finally {
			if (result != null) {
				this.failureReported = true;
			}
			if (publishOnExecutor) {
				this.device.completionPoller().complete(completion(), result);
			}
			else if (result == null) {
				completion().complete(null);
			}
			else {
				completion().completeExceptionally(result);
			}
		}
	}

	private void end(@Nullable Throwable result) {
		end(result, result);
	}

	private void end(@Nullable Throwable result, @Nullable Throwable streamFailure) {
		try {
			if (this.stream != null) {
				returnStream(streamFailure);
			}
			if (this.events != null) {
				this.events.forEach((event) -> this.device.eventPool().release(event.release()));
			}
			if (this.buffers != null) {
				this.buffers.forEach(Buffer::release);
			}
		}
		finally {
			long reserved = this.memoryReserved;
			this.memoryReserved = 0;
			this.memoryDrawn = 0;
			this.device.memory().releaseBudget(reserved);
			this.device.sessionEnded(this, result);
		}
	}

	private void returnStream(@Nullable Throwable result) {
		PooledStream lent = lent();
		if (result == null) {
			this.device.streamPool().release(lent);
			return;
		}
		if (!(result instanceof BackendException backendError && backendError.isSticky())) {
			// Earlier work may still run on a stream whose later call failed: let it
			// finish before the stream and the buffers are given back.
			try {
				SessionWaits.awaitIdle(this.device, lent.backend);
			}
			catch (RuntimeException ignored) {
				// The failure is already recorded.
			}
		}
		this.device.streamPool().discard(lent, result);
	}

	void enqueue(Runnable call) {
		this.workPending = true;
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			if (this.stream != null && !(ex instanceof OffloadException && !(ex instanceof BackendException))) {
				recordFailure(ex);
				this.failureReported = true;
			}
			throw ex;
		}
	}

	/**
	 * Hands the session's stream to a call that enqueues on it (a captured flow's capture
	 * or replay), as the session's own operations do.
	 */
	<T> T onStream(String operation, java.util.function.Function<BackendStream, T> call) {
		checkOpen(operation);
		Object[] result = new Object[1];
		enqueue(() -> result[0] = call.apply(stream().backend));
		@SuppressWarnings("unchecked")
		T typed = (T) result[0];
		return typed;
	}

	private Throwable recordFailure(Throwable ex) {
		if (this.failure == null) {
			this.failure = ex;
		}
		this.device.failIfSticky(ex);
		return this.failure;
	}

	/** The stream lent to this session, where the caller knows one is. */
	private PooledStream lent() {
		return Objects.requireNonNull(this.stream, "no stream is lent to this session");
	}

	/** The future of closeAsync or of the hand-off, where the caller knows one exists. */
	private CompletionFuture<Void> completion() {
		return Objects.requireNonNull(this.completion, "the session was not handed to the completion thread");
	}

	private PooledStream stream() {
		PooledStream lent = this.stream;
		if (lent == null) {
			lent = this.device.streamPool().borrow(this.priority, this.deadline, this.id, this.tenant);
			this.stream = lent;
		}
		return lent;
	}

	private void checkOpen(String operation) {
		if (this.closed) {
			throw new IllegalStateException(
					"Session " + this.id + " on device " + this.device.id() + " is closed; cannot " + operation);
		}
	}

	/**
	 * Ends this session on the completion thread once its stream is idle.
	 */
	private final class CloseTask implements CompletionPoller.Task {

		@Override
		public boolean poll() {
			return pollCompletion();
		}

		@Override
		public void abandon(String reason) {
			OffloadSession.this.abandon(reason);
		}

	}

	@Override
	public String toString() {
		return "OffloadSession[" + this.id + " on device " + this.device.id()
				+ ((this.stream != null) ? ", " + this.stream : "") + (this.closed ? ", closed" : "") + "]";
	}

}
