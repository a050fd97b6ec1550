package dev.offload.blas;

import dev.offload.LibraryStream;

/**
 * What a pooled stream keeps for BLAS calls: a cuBLAS handle bound to it
 * ({@link CublasHandle}), or the host emulation ({@link EmulatedBlas}).
 */
interface BlasHandle {

	/**
	 * Enqueues a checked call on the session's stream.
	 * @param call the call
	 * @param mathMode the math mode it asks for
	 * @param stream the session's stream
	 */
	void enqueue(BlasCall call, MathMode mathMode, LibraryStream stream);

	/**
	 * Releases the handle; never throws.
	 */
	void close();

}
