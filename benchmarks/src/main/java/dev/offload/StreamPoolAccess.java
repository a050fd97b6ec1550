package dev.offload;

/**
 * Lets the benchmarks borrow and release a {@link StreamPool}'s streams directly, without a session, to measure the
 * pool alone. It lives in the benchmarks module under core's package name (core is not a JPMS module, so the split
 * package is allowed on the class path); applications have no use for it.
 */
public final class StreamPoolAccess {

	private StreamPoolAccess() {
	}

	/**
	 * Borrows a {@link StreamPriority#NORMAL} stream, as a session's first operation does.
	 * @param pool the pool
	 * @return the lent stream, to be given to {@link #release}
	 */
	public static Object borrow(StreamPool pool) {
		return pool.borrow(StreamPriority.NORMAL);
	}

	/**
	 * Releases a stream that {@link #borrow} lent, as a session's close does once its work is done.
	 * @param pool the pool that lent it
	 * @param stream the stream
	 */
	public static void release(StreamPool pool, Object stream) {
		pool.release((PooledStream) stream);
	}

}
