package dev.offload.backend.ffm;

import dev.offload.DeviceBuffer;
import dev.offload.OffloadSession;

/**
 * The native handles behind a session on the CUDA backend's FFM binding, as raw
 * addresses, for libraries that work on the session's stream (through their own FFM
 * bindings, or JNI): <pre>{@code
 * try (OffloadSession session = device.openSession()) {
 *     FfmSessions.makeContextCurrent(session);
 *     cublasSetStream(handle, FfmSessions.stream(session));
 *     ...
 * }
 * }</pre> Where JCuda is on the class path, {@code session.unwrap(CUstream.class)} gives
 * the stream as a JCuda handle too. Work enqueued this way belongs to the session: its
 * synchronize and close wait for it. The binding caches the current context per thread;
 * code that switches contexts itself must call {@link #makeContextCurrent} before the
 * next session operation.
 */
public final class FfmSessions {

	private FfmSessions() {
	}

	/**
	 * Returns the session's stream, borrowing it if needed.
	 * @param session an open session of the CUDA backend on the FFM binding
	 * @return the {@code CUstream}'s address
	 * @throws IllegalArgumentException if the session is not on the FFM binding
	 * @throws IllegalStateException if the session is closed
	 */
	public static long stream(OffloadSession session) {
		return stream(session, "stream").address();
	}

	/**
	 * Returns the primary context of the session's device.
	 * @param session an open session of the CUDA backend on the FFM binding
	 * @return the {@code CUcontext}'s address
	 * @throws IllegalArgumentException if the session is not on the FFM binding
	 * @throws IllegalStateException if the session is closed
	 */
	public static long context(OffloadSession session) {
		return stream(session, "context").device().context();
	}

	/**
	 * Makes the session's context current on the calling thread, whatever the thread had
	 * current before.
	 * @param session an open session of the CUDA backend on the FFM binding
	 * @throws IllegalArgumentException if the session is not on the FFM binding
	 * @throws IllegalStateException if the session is closed
	 */
	public static void makeContextCurrent(OffloadSession session) {
		stream(session, "makeContextCurrent").device().forceCurrent();
	}

	/**
	 * Returns the device address of a device buffer.
	 * @param buffer an open device buffer of the CUDA backend on the FFM binding
	 * @return the address
	 * @throws IllegalArgumentException if the buffer is not memory of this binding
	 * @throws IllegalStateException if the buffer is closed
	 */
	public static long devicePointer(DeviceBuffer buffer) {
		if (buffer == null) {
			throw new IllegalArgumentException("buffer must not be null");
		}
		Object handle = buffer.nativeHandle();
		if (!(handle instanceof Long address)) {
			throw new IllegalArgumentException(buffer + " is on the " + buffer.device().backendName()
					+ " backend's other binding, not ffm (its handle is a " + handle.getClass().getName() + ")");
		}
		return address;
	}

	private static FfmStream stream(OffloadSession session, String operation) {
		if (session == null) {
			throw new IllegalArgumentException("session must not be null");
		}
		try {
			return session.unwrap(FfmStream.class);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Session " + session.id() + " is not on the CUDA backend's FFM binding ("
							+ session.device().backendName() + "), so FfmSessions." + operation + " cannot serve it",
					ex);
		}
	}

}
