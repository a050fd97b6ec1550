package dev.offload.spi;

import java.nio.ByteBuffer;

import org.jspecify.annotations.Nullable;

/**
 * A block of memory that a {@link BackendDevice} allocated: device memory, or page-locked
 * host memory.
 */
public interface NativeMemory {

	/**
	 * Returns the allocated size.
	 * @return the size in bytes
	 */
	long size();

	/**
	 * Tells whether this is host memory.
	 * @return {@code true} for page-locked host memory, {@code false} for device memory
	 */
	boolean isHost();

	/**
	 * Returns a little-endian view of the whole block for host code, if the host can
	 * address it.
	 * @return a new view (position 0, limit {@link #size()}); {@code null} for device
	 * memory of a real GPU
	 */
	@Nullable ByteBuffer hostView();

	/**
	 * Returns the little-endian view of the whole block that the memory keeps, for
	 * absolute reads and writes without a new object each time: callers never change its
	 * position, limit or order, and hand on views of their own made from it
	 * ({@link ByteBuffer#slice(int, int)}). The default makes a new view, as
	 * {@link #hostView()} does.
	 * @return the view (position 0, limit {@link #size()}); {@code null} for device
	 * memory of a real GPU
	 */
	default @Nullable ByteBuffer sharedHostView() {
		return hostView();
	}

	/**
	 * Returns the native handle ({@code jcuda.driver.CUdeviceptr} for CUDA device memory,
	 * {@code jcuda.Pointer} for CUDA host memory, a {@link ByteBuffer} on the host
	 * backend).
	 * @return the handle
	 */
	Object handle();

	/**
	 * Returns the memory's device address, for a library that reads or writes it itself
	 * (a {@code CUdeviceptr}'s value on CUDA; page-locked host memory's mapped device
	 * address).
	 * @return the address
	 * @throws UnsupportedOperationException if the backend has no device addresses (the
	 * host emulation, whose memory has a {@link #hostView() host view} instead)
	 */
	default long nativeAddress() {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " has no device address");
	}

	/**
	 * Frees the memory. May synchronize the device: the pool calls it off the hot path
	 * only.
	 */
	void free();

	/**
	 * Frees device memory in {@code stream}'s order ({@code cuMemFreeAsync} on CUDA),
	 * without synchronizing the device: the memory goes back once the work enqueued on
	 * {@code stream} before this call is done. Memory that cannot be freed in a stream's
	 * order is freed with {@link #free()}.
	 * @param stream the stream whose order the free joins
	 */
	default void free(BackendStream stream) {
		free();
	}

	/**
	 * Returns a part of this block that shares its memory, for sub-allocating one large
	 * page-locked allocation. Freeing a part does nothing; the block is freed as a whole.
	 * @param offset the part's first byte
	 * @param bytes the part's size
	 * @return the part
	 * @throws UnsupportedOperationException if the backend cannot address parts
	 */
	default NativeMemory slice(long offset, long bytes) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be sliced");
	}

}
