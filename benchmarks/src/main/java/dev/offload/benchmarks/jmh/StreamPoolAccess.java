package dev.offload.benchmarks.jmh;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import dev.offload.StreamPool;
import dev.offload.StreamPriority;

/**
 * Borrows and releases a {@link StreamPool}'s streams directly, without a session, to
 * measure the pool alone. The pool's borrow and release are package-private in core (only
 * sessions call them); the benchmarks reach them with a private method-handle lookup,
 * which works on the class path (one unnamed module); static final handles are constants
 * the JIT can inline, so core keeps its API closed and no class of the benchmarks lives
 * in core's package.
 */
final class StreamPoolAccess {

	private static final MethodHandle BORROW;

	private static final MethodHandle RELEASE;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(StreamPool.class, MethodHandles.lookup());
			Class<?> pooledStream = Class.forName("dev.offload.PooledStream", false, StreamPool.class.getClassLoader());
			MethodHandle borrow = lookup.findVirtual(StreamPool.class, "borrow",
					MethodType.methodType(pooledStream, StreamPriority.class));
			BORROW = MethodHandles.insertArguments(borrow, 1, StreamPriority.NORMAL)
				.asType(MethodType.methodType(Object.class, StreamPool.class));
			RELEASE = lookup.findVirtual(StreamPool.class, "release", MethodType.methodType(void.class, pooledStream))
				.asType(MethodType.methodType(void.class, StreamPool.class, Object.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private StreamPoolAccess() {
	}

	/**
	 * Borrows a {@link StreamPriority#NORMAL} stream, as a session's first operation
	 * does.
	 * @param pool the pool
	 * @return the lent stream, to be given to {@link #release}
	 */
	static Object borrow(StreamPool pool) {
		try {
			return (Object) BORROW.invokeExact(pool);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Releases a stream that {@link #borrow} lent, as a session's close does once its
	 * work is done.
	 * @param pool the pool that lent it
	 * @param stream the stream
	 */
	static void release(StreamPool pool, Object stream) {
		try {
			RELEASE.invokeExact(pool, stream);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

}
