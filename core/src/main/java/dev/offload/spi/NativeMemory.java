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
	 * Returns the native handle ({@code jcuda.driver.CUdeviceptr} for CUDA device memory,
	 * {@code jcuda.Pointer} for CUDA host memory, a {@link ByteBuffer} on the host
	 * backend).
	 * @return the handle
	 */
	Object handle();

	/**
	 * Frees the memory. May synchronize the device: the pool calls it off the hot path
	 * only.
	 */
	void free();

}
