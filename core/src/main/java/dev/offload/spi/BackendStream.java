package dev.offload.spi;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * An in-order work queue on one device (a CUDA stream). Work is enqueued asynchronously;
 * errors of enqueued work surface from {@link #query()} or {@link #synchronize()} as a
 * {@link dev.offload.BackendException}.
 * <p>
 * A stream is used by one session at a time (the pool guarantees it), so implementations
 * need not make enqueueing from several threads at once safe; {@link #query()} may be
 * called from the device's completion thread.
 */
public interface BackendStream {

	/**
	 * Enqueues a copy between two memories of this device (host to device, device to
	 * host, device to device, or host to host). Offsets and sizes are already checked.
	 * @param src the source
	 * @param srcOffset the offset in the source, in bytes
	 * @param dst the destination
	 * @param dstOffset the offset in the destination, in bytes
	 * @param bytes the number of bytes
	 */
	void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes);

	/**
	 * Enqueues setting {@code bytes} bytes of device memory to {@code value}.
	 * @param dst the memory
	 * @param offset the offset, in bytes
	 * @param bytes the number of bytes
	 * @param value the byte value
	 */
	void fill(NativeMemory dst, long offset, long bytes, byte value);

	/**
	 * Enqueues a kernel launch. The arguments are already checked against the kernel's
	 * parameters: each is an {@link Integer}, {@link Long}, {@link Float}, {@link Double}
	 * or {@link NativeMemory}. The array is the caller's again once the call returns (a
	 * session reuses it for its next launch): a backend that reads the arguments later
	 * copies them.
	 * @param kernel the kernel
	 * @param gridX grid size in x
	 * @param gridY grid size in y
	 * @param gridZ grid size in z
	 * @param blockX block size in x
	 * @param blockY block size in y
	 * @param blockZ block size in z
	 * @param sharedMemoryBytes dynamic shared memory per block
	 * @param args the arguments
	 */
	void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, Object[] args);

	/**
	 * Captures the copies, fills and launches that {@code steps} enqueue on this stream
	 * into a graph, without running them: the stream is in capture mode while
	 * {@code steps} run on the calling thread, and {@link #record}, {@link #waitFor},
	 * {@link #query} and {@link #synchronize} must not be called meanwhile.
	 * @param steps enqueues the operations on the stream it is given
	 * @return the graph, ready to launch on any stream of this device
	 * @throws dev.offload.BackendException if the runtime refuses the capture
	 * @throws UnsupportedOperationException if the backend has no graphs
	 */
	default BackendGraph capture(Consumer<BackendStream> steps) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot capture graphs");
	}

	/**
	 * Enqueues a replay of a graph captured on a stream of this device.
	 * @param graph the graph, not destroyed
	 * @throws UnsupportedOperationException if the backend has no graphs
	 */
	default void launch(BackendGraph graph) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot launch graphs");
	}

	/**
	 * Enqueues recording {@code event}: it completes when the work enqueued before it
	 * does.
	 * @param event the event
	 */
	void record(BackendEvent event);

	/**
	 * Makes work enqueued after this call wait until {@code event}, as last recorded,
	 * completes.
	 * @param event the event
	 */
	void waitFor(BackendEvent event);

	/**
	 * Tells whether all work enqueued so far is done, without blocking.
	 * @return {@code true} when the stream is idle
	 * @throws dev.offload.BackendException if enqueued work failed
	 */
	boolean query();

	/**
	 * Blocks until all work enqueued before this call is done.
	 * @throws dev.offload.BackendException if enqueued work failed
	 */
	void synchronize();

	/**
	 * Returns the native handle ({@code jcuda.driver.CUstream} on CUDA).
	 * @return the handle
	 */
	Object handle();

	/**
	 * Returns the native handle as a {@code type}, for
	 * {@link dev.offload.OffloadSession#unwrap(Class)}: the {@link #handle()} when it is
	 * one, or another view of the same native stream that the backend can give (the FFM
	 * binding gives its raw address as a {@link Long} and, where JCuda is on the class
	 * path, a {@code jcuda.driver.CUstream}).
	 * @param <T> the handle's type
	 * @param type the type asked for
	 * @return the handle, or {@code null} if the stream has none of that type
	 */
	default <T> @Nullable T handle(Class<T> type) {
		Object handle = handle();
		return type.isInstance(handle) ? type.cast(handle) : null;
	}

	/**
	 * Returns the native stream's address, for a library that enqueues on it itself
	 * (cuBLAS's {@code cublasSetStream}): a {@code CUstream}, which is also a
	 * {@code cudaStream_t}. Valid until the stream is destroyed.
	 * @return the address
	 * @throws UnsupportedOperationException if the backend has no native streams (the
	 * host emulation)
	 */
	default long nativeAddress() {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " has no native stream address");
	}

	/**
	 * Makes the calling thread ready for a native library's call that concerns this
	 * stream without enqueueing on it (creating or destroying the library's handle): the
	 * device's context current on CUDA. Default: nothing.
	 */
	default void makeCurrent() {
	}

	/**
	 * Runs a call of a library that works on this stream (cuBLAS, cuFFT, cuRAND, or their
	 * host emulation), such as {@link dev.offload.StreamLibrary}'s handles make. A
	 * backend with native streams runs it now, on the calling thread, with the device's
	 * context current there, and the library enqueues its work on the stream itself; the
	 * host emulation enqueues it and runs it in the stream's order on a worker, where
	 * what it throws fails the stream's work as a kernel's failure does (a
	 * {@link dev.offload.BackendException} as it is).
	 * @param operation the call, e.g. {@code cublasSgemm_v2}, for errors and decorators
	 * @param call the call
	 * @throws dev.offload.BackendException if the runtime refuses
	 * @throws UnsupportedOperationException if the backend runs no library calls
	 */
	default void callLibrary(String operation, Runnable call) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " runs no library calls");
	}

	/**
	 * Returns this backend's own binding of a native library that enqueues on its
	 * streams, where the backend brings one: the FFM backend binds cuBLAS through the
	 * foreign function API, so that a library it runs needs no JNA. A library asks with
	 * the type of its binding's loader (Offload's cuBLAS handles ask for
	 * {@code dev.offload.internal.blas.CublasBinding.Loader}) and loads its default
	 * binding when there is none (the default).
	 * @param <T> the loader's type
	 * @param type the type asked for
	 * @return the backend's binding of that type, or {@code null}
	 */
	default <T> @Nullable T libraryBinding(Class<T> type) {
		return null;
	}

	/**
	 * Destroys the stream. Work still on it completes first where the runtime allows it.
	 */
	void destroy();

}
