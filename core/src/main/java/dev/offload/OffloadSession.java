package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendStream;

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

	private final long id = SessionIds.next();

	private final SessionContext context;

	private final StreamPriority priority;

	private final @Nullable String tenant;

	private final long openedNanos;

	private final @Nullable SessionDeadline deadline;

	/** The session's stream, buffers, events, reservation, failure and waits. */
	final SessionWork work;

	OffloadSession(SessionContext context, StreamPriority priority, @Nullable Duration timeout, @Nullable String tenant,
			TenantShares.Tenant shares) {
		this.context = context;
		this.priority = priority;
		this.tenant = tenant;
		this.deadline = (timeout != null) ? new SessionDeadline(timeout) : null;
		// Read the clock (about 100 ns on some VMs) only when a listener wants durations.
		this.openedNanos = context.listened ? System.nanoTime() : 0;
		this.work = new SessionWork(this, context, priority, this.deadline, shares);
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
		return this.context.device;
	}

	/**
	 * Returns the priority class of the session's stream.
	 * @return the priority
	 */
	public StreamPriority priority() {
		return this.priority;
	}

	/**
	 * Returns the tenant whose share of the device ({@link TenantPolicy}) serves its
	 * waits.
	 * @return the tenant, or {@code null} for none ({@link TenantPolicy#DEFAULT_TENANT})
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
		return this.work.closed;
	}

	/**
	 * Tells whether the session has borrowed its stream yet.
	 * @return {@code true} after its first operation (a closed session still answers for
	 * the stream it had)
	 */
	public boolean hasStream() {
		return this.work.hasStream();
	}

	/**
	 * Returns the id of the session's stream within its pool, borrowing it if needed. A
	 * closed session answers with the stream it had.
	 * @return the stream's id
	 * @throws IllegalStateException if the session is closed and never had a stream
	 */
	public int streamId() {
		if (!this.work.hasStream()) {
			checkOpen("borrow a stream");
		}
		return this.work.stream().id;
	}

	/**
	 * Returns the failure of the session's work seen so far.
	 * @return the failure, or {@code null}
	 */
	public @Nullable Throwable failure() {
		return this.work.failure;
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
		return this.work.attribute(name);
	}

	/**
	 * Attaches an attribute to the session.
	 * @param name the attribute's name
	 * @param value the value, or {@code null} to remove it
	 */
	public synchronized void setAttribute(String name, @Nullable Object value) {
		this.work.setAttribute(name, value);
	}

	/**
	 * Allocates device memory that the session gives back when its work is done. The
	 * memory is allocated in the order of the session's stream (borrowed now if it was
	 * not) and counts against the device's memory budget until the session ends; beyond
	 * what {@link #reserveMemory(long)} reserved, the session waits for the budget under
	 * its priority and deadline. A buffer {@linkplain Buffer#close() closed} before the
	 * session's last synchronize leaves its memory to the session's next buffers, so a
	 * session kept for many requests holds only what its open buffers need; one closed
	 * while its work may still run comes back when the budget runs short, after the
	 * session waits for its own work.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 * @throws MemoryBudgetExceededException if the budget did not admit the memory before
	 * the session's deadline or the borrow timeout, or is smaller than it
	 * @throws DeviceOutOfMemoryException if the device had no memory, even after Offload
	 * gave back what it cached (retryable)
	 */
	public DeviceBuffer allocate(long bytes) {
		checkOpen("allocate");
		return this.work.own(new DeviceBuffer(this.context.device, this.work.allocateDevice(bytes), bytes, this));
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
		this.work.reuseClosed();
		this.work.admit(bytes);
		return this;
	}

	/**
	 * Returns the device memory the budget admitted for this session.
	 * @return the reserved bytes, including those its buffers use
	 */
	public long reservedMemory() {
		return this.work.reservedMemory();
	}

	/**
	 * Allocates page-locked host memory that the session gives back when its work is
	 * done, or at its first synchronize after the buffer is {@linkplain Buffer#close()
	 * closed}.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 * @throws HostStagingOutOfMemoryException if the host had no page-locked memory for
	 * the staging chunk it needed (retryable)
	 */
	public HostBuffer allocateHost(long bytes) {
		checkOpen("allocateHost");
		this.work.reuseClosed();
		return this.work.own(new HostBuffer(this.context.device, this.context.acquireHostMemory(bytes), bytes, this));
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
	 * memory of its device: the calling thread waits for the work this session enqueued
	 * so far, as {@link #synchronize()} does (so an event this session waits for also
	 * holds the staging back, and its failure is thrown here), then that device's staging
	 * stream (its own, not lent by its pool, one copy at a time) copies the range out,
	 * waited for on the calling thread; the copy into {@code dst} is then enqueued here.
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
		this.work.copy(src, srcOffset, dst, dstOffset, bytes);
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
		this.work.fill(dst, offset, bytes, value);
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
		this.work.launch(kernel, config, args);
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
		launch(this.context.device.kernel(kernel), config, args);
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
		this.context.libraryHandles.call(this, this.work::stream, library, operation, call);
	}

	/**
	 * Records an event after the work enqueued so far; valid until this session ends.
	 * @return the event
	 */
	public StreamEvent recordEvent() {
		checkOpen("recordEvent");
		return this.work.recordEvent();
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
		this.work.enqueue(() -> this.work.stream().backend.waitFor(backendEvent));
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
		return this.work.whenDone();
	}

	/**
	 * Blocks until the work this session enqueued is done; other sessions' work is not
	 * waited for.
	 * @throws BackendException if the work failed (the stream is discarded when the
	 * session ends)
	 */
	public void synchronize() {
		checkOpen("synchronize");
		this.work.synchronize();
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
		return this.work.unwrap(type);
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
		this.work.close();
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
		return this.work.closeAsync();
	}

	/**
	 * Tells whether someone waits for this session's work now: a thread in
	 * {@link #synchronize()} or {@link #close()}, or a pending {@link #whenDone()}
	 * future. A session open for long while its work runs or queues is busy, not
	 * forgotten; leak detection asks. Safe to call from any thread.
	 * @return {@code true} while its work is awaited
	 */
	public boolean isAwaitingWork() {
		return this.work.isAwaitingWork();
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
		return this.work.withinDeadline(work);
	}

	/**
	 * Hands the session's stream to a call that enqueues on it (a captured flow's capture
	 * or replay), as the session's own operations do.
	 */
	<T> T onStream(String operation, Function<BackendStream, T> call) {
		checkOpen(operation);
		return this.work.onStream(call);
	}

	private void checkOpen(String operation) {
		this.work.checkOpen(operation);
	}

	@Override
	public String toString() {
		return "OffloadSession[" + this.id + " on device " + this.context.device.id()
				+ (this.work.hasStream() ? ", " + this.work.stream() : "") + (this.work.closed ? ", closed" : "") + "]";
	}

}
