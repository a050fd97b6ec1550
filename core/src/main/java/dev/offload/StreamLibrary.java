package dev.offload;

/**
 * A library that enqueues work on a session's stream through a handle bound to that
 * stream: cuBLAS's {@code cublasHandle_t} (Offload's {@code dev.offload.blas}), and in
 * the same way cuFFT's plans, cuRAND's generators or an inference engine's run options on
 * a user compute stream.
 * <p>
 * A device keeps one handle per library on each of its pooled streams: {@link #open}
 * creates it the first time a session on that stream calls the library, bound to the
 * stream once, with whatever device memory it takes from the device's budget
 * ({@link LibraryStream#allocateWorkspace}); it stays with the stream across sessions,
 * and {@link #close} destroys it when the stream is destroyed (a stream discarded after a
 * failure, or the pool's shutdown). So after warm-up, no handle is created on a request's
 * path. A library is keyed by its identity: keep one instance per configuration (a
 * constant, or a bean).
 * <p>
 * Sessions call it through {@link OffloadSession#callLibrary}, which counts the calls and
 * reports them to the device's {@link OffloadListener}; {@link Device#libraryStatistics}
 * counts handles and workspace.
 *
 * @param <H> the handle's type
 */
public interface StreamLibrary<H> {

	/**
	 * Returns the library's name, as statistics and meters tag it.
	 * @return a short lowercase name, e.g. {@code blas}
	 */
	String name();

	/**
	 * Creates a handle bound to {@code stream}, on the thread of the session that calls
	 * the library first on that stream.
	 * @param stream the stream, and the workspace the handle may take with it
	 * @return the handle
	 * @throws OffloadException if the library cannot be loaded or refuses
	 */
	H open(LibraryStream stream);

	/**
	 * Destroys a handle whose stream is being destroyed; its workspace is given back
	 * afterwards. Must not throw.
	 * @param handle the handle
	 */
	void close(H handle);

	/**
	 * One call of the library on the handle of a session's stream.
	 *
	 * @param <H> the handle's type
	 */
	@FunctionalInterface
	interface Call<H> {

		/**
		 * Enqueues the call's work, through {@link LibraryStream#call}.
		 * @param handle the stream's handle
		 * @param stream the session's stream
		 */
		void enqueue(H handle, LibraryStream stream);

	}

}
