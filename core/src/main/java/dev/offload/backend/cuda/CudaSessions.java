package dev.offload.backend.cuda;

import dev.offload.Buffer;
import dev.offload.DeviceBuffer;
import dev.offload.OffloadSession;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * The native handles behind a session on the CUDA backend, for libraries such as JCublas
 * or JCufft that work on the session's stream: <pre>{@code
 * try (OffloadSession session = device.openSession()) {
 *     CudaSessions.makeContextCurrent(session);
 *     JCublas2.cublasSetStream(handle, new cudaStream_t(CudaSessions.stream(session)));
 *     ...
 * }
 * }</pre> Work enqueued this way belongs to the session: its synchronize and close wait
 * for it. The backend caches the current context per thread; code that switches contexts
 * itself ({@code cuCtxSetCurrent}) on a thread that also uses sessions must call
 * {@link #makeContextCurrent(OffloadSession)} before the next session operation.
 */
public final class CudaSessions {

	private CudaSessions() {
	}

	/**
	 * Returns the session's stream, borrowing it if needed.
	 * @param session an open session of the CUDA backend
	 * @return the stream
	 * @throws IllegalArgumentException if the session is not on the CUDA backend
	 * @throws IllegalStateException if the session is closed
	 */
	public static CUstream stream(OffloadSession session) {
		return handle(session);
	}

	/**
	 * Returns the primary context of the session's device.
	 * @param session an open session of the CUDA backend
	 * @return the context
	 * @throws IllegalArgumentException if the session is not on the CUDA backend
	 * @throws IllegalStateException if the session is closed
	 */
	public static CUcontext context(OffloadSession session) {
		return handle(session).device().context();
	}

	/**
	 * Makes the session's context current on the calling thread, whatever the thread had
	 * current before.
	 * @param session an open session of the CUDA backend
	 * @throws IllegalArgumentException if the session is not on the CUDA backend
	 * @throws IllegalStateException if the session is closed
	 */
	public static void makeContextCurrent(OffloadSession session) {
		handle(session).device().forceCurrent();
	}

	/**
	 * Returns the device address of a device buffer.
	 * @param buffer an open device buffer of the CUDA backend
	 * @return the address
	 * @throws IllegalArgumentException if the buffer is not CUDA memory
	 * @throws IllegalStateException if the buffer is closed
	 */
	public static CUdeviceptr devicePointer(DeviceBuffer buffer) {
		return (CUdeviceptr) checkHandle(buffer, CUdeviceptr.class);
	}

	private static Object checkHandle(Buffer buffer, Class<?> type) {
		if (buffer == null) {
			throw new IllegalArgumentException("buffer must not be null");
		}
		Object handle = buffer.nativeHandle();
		if (!type.isInstance(handle)) {
			throw new IllegalArgumentException(
					buffer + " is on the " + buffer.device().backendName() + " backend, not cuda");
		}
		return handle;
	}

	private static CudaStreamHandle handle(OffloadSession session) {
		if (session == null) {
			throw new IllegalArgumentException("session must not be null");
		}
		if (!CudaBackend.NAME.equals(session.device().backendName())) {
			throw new IllegalArgumentException(
					"Session " + session.id() + " is on the " + session.device().backendName() + " backend, not cuda");
		}
		return session.unwrap(CudaStreamHandle.class);
	}

}
