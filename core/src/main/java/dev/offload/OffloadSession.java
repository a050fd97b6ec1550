package dev.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendException;
import dev.offload.spi.BackendStream;

/**
 * A unit of work on one device: the stream it borrows on its first operation is its own until it ends, so
 * {@link #synchronize()} waits for this session's work only (the LLVM offload runtime's {@code async_info}).
 * <p>
 * Copies, fills, launches and event operations are asynchronous. {@link #close()} waits for the work and gives the
 * stream back; {@link #closeAsync()} gives it back when the work is done, without blocking a thread. A session whose
 * work failed has its stream destroyed, never lent again. A session is used by one thread at a time; it may be handed
 * from thread to thread.
 * <p>
 * A session that is never closed keeps its stream and buffers for ever: always close it, as with
 * try-with-resources. Using it after close throws {@link IllegalStateException}; closing twice is harmless.
 */
public final class OffloadSession implements AutoCloseable {

	private static final AtomicLong ids = new AtomicLong();

	private final long id = ids.incrementAndGet();

	private final Device device;

	private final StreamPriority priority;

	private final long openedNanos;

	private PooledStream stream;

	private List<Buffer> buffers;

	private List<StreamEvent> events;

	private Map<String, Object> attributes;

	private volatile boolean closed;

	private Throwable failure;

	private boolean failureReported;

	private CompletableFuture<Void> completion;

	OffloadSession(Device device, StreamPriority priority) {
		this.device = device;
		this.priority = priority;
		// The clock costs about 100 ns on some virtual machines: read it only when a listener wants durations.
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
	public Throwable failure() {
		return this.failure;
	}

	long openedNanos() {
		return this.openedNanos;
	}

	/**
	 * Returns an attribute that integrations (tracing, templates) attached to the session.
	 * @param name the attribute's name
	 * @return the value, or {@code null}
	 */
	public synchronized Object getAttribute(String name) {
		return (this.attributes != null) ? this.attributes.get(name) : null;
	}

	/**
	 * Attaches an attribute to the session.
	 * @param name the attribute's name
	 * @param value the value, or {@code null} to remove it
	 */
	public synchronized void setAttribute(String name, Object value) {
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
	 * Allocates device memory that the session gives back when its work is done.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 */
	public DeviceBuffer allocate(long bytes) {
		checkOpen("allocate");
		DeviceBuffer buffer = new DeviceBuffer(this.device, this.device.acquireMemory(bytes, false), bytes, this);
		own(buffer);
		return buffer;
	}

	/**
	 * Allocates page-locked host memory that the session gives back when its work is done.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 */
	public HostBuffer allocateHost(long bytes) {
		checkOpen("allocateHost");
		HostBuffer buffer = new HostBuffer(this.device, this.device.acquireMemory(bytes, true), bytes, this);
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

	private void own(Buffer buffer) {
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
	 * Enqueues copying {@code bytes} bytes between buffers of this session's device.
	 * @param src the source (host or device)
	 * @param srcOffset the offset in the source
	 * @param dst the destination (host or device)
	 * @param dstOffset the offset in the destination
	 * @param bytes the number of bytes
	 * @throws IllegalArgumentException if a range is outside its buffer, before anything is enqueued
	 */
	public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
		checkOpen("copy");
		if (src == null || dst == null) {
			throw new IllegalArgumentException("copy needs a source and a destination, was " + src + " -> " + dst);
		}
		var from = src.memoryFor(this.device, "the copy's source");
		var to = dst.memoryFor(this.device, "the copy's destination");
		src.checkRange(srcOffset, bytes, "the copy's source");
		dst.checkRange(dstOffset, bytes, "the copy's destination");
		if (bytes == 0) {
			return;
		}
		enqueue(() -> stream().backend.copy(from, srcOffset, to, dstOffset, bytes));
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
	 * Enqueues setting {@code bytes} bytes of {@code dst} from {@code offset} to {@code value}.
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
	 * Enqueues a kernel launch, after checking the arguments against the kernel's parameters.
	 * @param kernel a kernel loaded on this session's device
	 * @param config the grid, block and shared memory sizes
	 * @param args one argument per parameter: {@link Integer}, {@link Long}, {@link Float}, {@link Double} or
	 * {@link DeviceBuffer}
	 * @throws IllegalArgumentException if an argument does not fit, before anything is enqueued
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
	 * Enqueues a launch of a kernel named independently of the device, loading its module on this session's device
	 * the first time.
	 * @param kernel the kernel's module and name
	 * @param config the grid, block and shared memory sizes
	 * @param args one argument per parameter, as for {@link #launch(Kernel, LaunchConfig, Object...)}
	 * @throws IllegalArgumentException if an argument does not fit, before anything is enqueued
	 */
	public void launch(KernelRef kernel, LaunchConfig config, Object... args) {
		checkOpen("launch");
		if (kernel == null) {
			throw new IllegalArgumentException("launch needs a kernel and a launch configuration");
		}
		launch(this.device.kernel(kernel), config, args);
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
	 * Makes the work enqueued after this call wait for {@code event} (recorded by any session, on any device).
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
	 * Blocks until the work this session enqueued is done; other sessions' work is not waited for.
	 * @throws BackendException if the work failed (the stream is discarded when the session ends)
	 */
	public void synchronize() {
		checkOpen("synchronize");
		if (this.stream == null) {
			return;
		}
		if (this.failure != null) {
			this.failureReported = true;
			throw asRuntime(this.failure);
		}
		try {
			this.stream.backend.synchronize();
		}
		catch (RuntimeException ex) {
			recordFailure(ex);
			this.failureReported = true;
			throw ex;
		}
	}

	/**
	 * Returns the session's native stream, borrowing it if needed, so that other CUDA libraries can enqueue work on
	 * it ({@code jcuda.driver.CUstream} on CUDA).
	 * @param <T> the handle's type
	 * @param type the expected type of the handle
	 * @return the handle
	 * @throws IllegalArgumentException if the backend's handle is not a {@code type}
	 */
	public <T> T unwrap(Class<T> type) {
		checkOpen("unwrap");
		Object handle = stream().backend.handle();
		if (!type.isInstance(handle)) {
			throw new IllegalArgumentException("The " + this.device.backendName() + " backend's stream is a "
					+ handle.getClass().getName() + ", not a " + type.getName());
		}
		return type.cast(handle);
	}

	/**
	 * Waits for the session's work, gives its stream back (or discards it if the work failed) and its buffers and
	 * events. Closing twice is harmless.
	 * @throws BackendException if the work failed and no earlier call reported it
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		Throwable result = this.failure;
		if (this.stream != null && result == null) {
			try {
				this.stream.backend.synchronize();
			}
			catch (RuntimeException ex) {
				result = recordFailure(ex);
			}
		}
		end(result);
		if (result != null && !this.failureReported) {
			this.failureReported = true;
			throw asRuntime(result);
		}
	}

	/**
	 * Closes the session without blocking: the future completes when its work is done and its stream is back in the
	 * pool, or fails with the work's failure (the stream is then discarded). The device's completion thread
	 * completes it: continue with {@code thenApplyAsync} for anything slow.
	 * @return the completion; the same future if called again
	 */
	public CompletableFuture<Void> closeAsync() {
		if (this.closed) {
			return (this.completion != null) ? this.completion : CompletableFuture.completedFuture(null);
		}
		this.closed = true;
		this.completion = new CompletableFuture<>();
		if (this.stream == null || this.failure != null) {
			finish(this.failure);
		}
		else {
			this.device.completionPoller().submit(this);
		}
		return this.completion;
	}

	/**
	 * Called by the completion thread: finishes the session if its work is done.
	 * @return {@code true} when finished
	 */
	boolean pollCompletion() {
		boolean done;
		try {
			done = this.stream.backend.query();
		}
		catch (RuntimeException ex) {
			finish(recordFailure(ex));
			return true;
		}
		if (done) {
			finish(null);
		}
		return done;
	}

	private void finish(Throwable result) {
		try {
			end(result);
		}
		finally {
			if (result == null) {
				this.completion.complete(null);
			}
			else {
				this.failureReported = true;
				this.completion.completeExceptionally(result);
			}
		}
	}

	private void end(Throwable result) {
		try {
			if (this.stream != null) {
				returnStream(result);
			}
			if (this.events != null) {
				this.events.forEach((event) -> this.device.eventPool().release(event.release()));
			}
			if (this.buffers != null) {
				this.buffers.forEach(Buffer::release);
			}
		}
		finally {
			this.device.sessionEnded(this, result);
		}
	}

	private void returnStream(Throwable result) {
		PooledStream lent = this.stream;
		if (result == null) {
			this.device.streamPool().release(lent);
			return;
		}
		if (!(result instanceof BackendException backendError && backendError.isSticky())) {
			// Earlier work may still run on a stream whose later call failed: let it finish before the stream and
			// the buffers are given back.
			try {
				lent.backend.synchronize();
			}
			catch (RuntimeException ignored) {
				// The failure is already recorded.
			}
		}
		this.device.streamPool().discard(lent, result);
	}

	private void enqueue(Runnable call) {
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

	private Throwable recordFailure(Throwable ex) {
		if (this.failure == null) {
			this.failure = ex;
		}
		this.device.failIfSticky(ex);
		return this.failure;
	}

	private PooledStream stream() {
		PooledStream lent = this.stream;
		if (lent == null) {
			lent = this.device.streamPool().borrow(this.priority);
			this.stream = lent;
		}
		return lent;
	}

	private void checkOpen(String operation) {
		if (this.closed) {
			throw new IllegalStateException("Session " + this.id + " on device " + this.device.id()
					+ " is closed; cannot " + operation);
		}
	}

	private static RuntimeException asRuntime(Throwable failure) {
		return (failure instanceof RuntimeException runtime) ? runtime
				: new OffloadException("The session's work failed", failure);
	}

	@Override
	public String toString() {
		return "OffloadSession[" + this.id + " on device " + this.device.id()
				+ ((this.stream != null) ? ", " + this.stream : "") + (this.closed ? ", closed" : "") + "]";
	}

}
