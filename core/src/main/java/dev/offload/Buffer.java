package dev.offload;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.NativeMemory;

/**
 * Memory of one device that copies and kernels use: {@link DeviceBuffer} or page-locked
 * {@link HostBuffer}.
 * <p>
 * A buffer allocated by a session belongs to it and goes back to the device's buffer
 * cache when the session's work is done. A buffer allocated from a {@link Device} belongs
 * to the caller, who must {@link #close()} it once no session uses it any more: an
 * unclosed device buffer leaks its memory. Using a buffer after it was closed throws
 * {@link IllegalStateException}.
 */
public abstract sealed class Buffer implements AutoCloseable permits DeviceBuffer, HostBuffer {

	private static final AtomicIntegerFieldUpdater<Buffer> RELEASED = AtomicIntegerFieldUpdater.newUpdater(Buffer.class,
			"released");

	private final Device device;

	private final NativeMemory memory;

	private final long size;

	private final @Nullable OffloadSession owner;

	private volatile boolean closed;

	/** 1 once the memory went back: set by one compare-and-set, so that only once. */
	private volatile int released;

	Buffer(Device device, NativeMemory memory, long size, @Nullable OffloadSession owner) {
		this.device = device;
		this.memory = memory;
		this.size = size;
		this.owner = owner;
	}

	/**
	 * Returns the size asked for.
	 * @return the size in bytes
	 */
	public final long size() {
		return this.size;
	}

	/**
	 * Returns the device the memory belongs to.
	 * @return the device
	 */
	public final Device device() {
		return this.device;
	}

	/**
	 * Tells whether the buffer was closed (or its session ended).
	 * @return {@code true} once it may no longer be used
	 */
	public final boolean isClosed() {
		return this.closed;
	}

	/**
	 * Returns the native handle ({@code CUdeviceptr} or {@code Pointer} on CUDA, a
	 * {@code ByteBuffer} on the host backend), for other CUDA libraries working on a
	 * session's stream.
	 * @return the handle
	 * @throws IllegalStateException if the buffer is closed
	 */
	public final Object nativeHandle() {
		checkOpen("nativeHandle");
		return this.memory.handle();
	}

	/**
	 * Closes the buffer. A session's buffer goes back once the work the session enqueued
	 * before the close is done: at the session's next
	 * {@link OffloadSession#synchronize()}, or when the session ends, so that a session
	 * kept open for many requests reuses what each request closed (a session holding many
	 * closed buffers whose work nothing waited for waits for that work at its next
	 * allocation instead); work that other sessions enqueued on it must be done (or
	 * waited for) by then. A device's buffer goes back to the device's cache now, so no
	 * session may still use it. Closing twice is harmless.
	 */
	@Override
	public final void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		if (this.owner == null) {
			release();
		}
		else {
			this.owner.work.closedSomething((this instanceof HostBuffer) ? this.size : 0);
		}
	}

	final void release() {
		// An application's buffer gives its own bytes back right after the block; a
		// session's stay in its reservation.
		release((this.owner == null) ? this.memory.size() : 0);
	}

	/**
	 * Gives the buffer's memory back.
	 * @param budgetBytesFollowing the bytes of the budget that its owner gives back right
	 * after (the block's own for an application's buffer, the whole reservation when a
	 * session ends), which the cache may count as free when it bounds what it keeps
	 */
	final void release(long budgetBytesFollowing) {
		if (!this.closed) {
			this.closed = true;
		}
		// Two threads closing one buffer at once must not give its memory (and budget)
		// back twice: the cache would hand the block to two buffers.
		if (RELEASED.compareAndSet(this, 0, 1)) {
			this.device.sessions().releaseMemory(this.memory, this.owner == null, budgetBytesFollowing);
		}
	}

	final NativeMemory memoryFor(Device target, String use) {
		checkOpen(use);
		if (target != this.device) {
			throw new IllegalArgumentException(
					"The buffer for " + use + " belongs to device " + this.device.id() + ", not device " + target.id());
		}
		return this.memory;
	}

	final boolean ownedBySession() {
		return this.owner != null;
	}

	final NativeMemory memory() {
		return this.memory;
	}

	final void checkOpen(String use) {
		if (this.closed) {
			throw new IllegalStateException(
					"The " + getClass().getSimpleName() + " of " + this.size + " bytes used for " + use + " is closed");
		}
	}

	final void checkRange(long offset, long bytes, String use) {
		if (offset < 0 || bytes < 0 || offset > this.size - bytes) {
			throw new IllegalArgumentException("Range [" + offset + ", " + offset + " + " + bytes + ") of " + use
					+ " is outside the " + getClass().getSimpleName() + " of " + this.size + " bytes");
		}
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.size + " bytes on device " + this.device.id()
				+ (this.closed ? ", closed" : "") + "]";
	}

}
