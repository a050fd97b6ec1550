package dev.offload.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.jspecify.annotations.Nullable;

/**
 * Tells whether a thread is a virtual thread (Java 21+) while Offload is compiled for
 * Java 17: {@code
 * Thread.isVirtual()} is looked up once, and every thread is a platform thread on a
 * runtime without it.
 * <p>
 * Offload uses it to keep virtual threads off blocking driver calls (a wait parks them
 * instead, and the device's completion thread wakes them), and backends use it where
 * state is tied to the operating-system thread (a CUDA context is current per carrier
 * thread, not per virtual thread).
 */
public final class VirtualThreads {

	private static final @Nullable MethodHandle IS_VIRTUAL = lookUpIsVirtual();

	private VirtualThreads() {
	}

	/**
	 * Tells whether virtual threads exist on this runtime.
	 * @return {@code true} on Java 21 and later
	 */
	public static boolean isSupported() {
		return IS_VIRTUAL != null;
	}

	/**
	 * Tells whether the calling thread is a virtual thread.
	 * @return {@code true} for a virtual thread, {@code false} for a platform thread or
	 * on a runtime before Java 21
	 */
	public static boolean isCurrentThreadVirtual() {
		return isVirtual(Thread.currentThread());
	}

	/**
	 * Tells whether {@code thread} is a virtual thread.
	 * @param thread the thread
	 * @return {@code true} for a virtual thread, {@code false} for a platform thread or
	 * on a runtime before Java 21
	 */
	public static boolean isVirtual(Thread thread) {
		if (IS_VIRTUAL == null) {
			return false;
		}
		try {
			return (boolean) IS_VIRTUAL.invokeExact(thread);
		}
		catch (Throwable ex) {
			// Thread.isVirtual() declares nothing and throws nothing.
			throw new IllegalStateException("Thread.isVirtual() failed", ex);
		}
	}

	private static @Nullable MethodHandle lookUpIsVirtual() {
		try {
			return MethodHandles.publicLookup()
				.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		}
		catch (NoSuchMethodException | IllegalAccessException ex) {
			// Java 17 to 20: there are no virtual threads.
			return null;
		}
	}

}
