package dev.offload;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.offload.health.GpuFault;

/**
 * Callbacks on pool and session events, for metrics, tracing and leak detection. Every
 * method has an empty default; implementations must be fast and must not throw (what they
 * throw is logged and dropped).
 */
public interface OffloadListener {

	/**
	 * A listener that does nothing.
	 */
	OffloadListener NONE = new OffloadListener() {
	};

	/**
	 * Returns a listener that calls all of {@code listeners} in order, so that metrics,
	 * tracing and leak detection each plug in their own, and isolates them: what one
	 * throws is logged and dropped, and the next one is still called.
	 * @param listeners the listeners, in calling order
	 * @return {@link #NONE} for none, else a listener that calls each
	 */
	static OffloadListener composite(List<? extends OffloadListener> listeners) {
		return CompositeOffloadListener.of(listeners);
	}

	/**
	 * A stream was lent.
	 * @param device the device
	 * @param priority the stream's class
	 * @param waitNanos how long the borrow took, creation and waiting included; 0 when an
	 * idle stream was taken at once (the fast path does not read the clock)
	 */
	default void streamBorrowed(Device device, StreamPriority priority, long waitNanos) {
	}

	/**
	 * A borrow gave up after the borrow timeout.
	 * @param device the device
	 */
	default void borrowTimedOut(Device device) {
	}

	/**
	 * A stream was destroyed because its work failed.
	 * @param device the device
	 * @param cause the failure
	 */
	default void streamDiscarded(Device device, Throwable cause) {
	}

	/**
	 * A session was opened.
	 * @param session the session
	 */
	default void sessionOpened(OffloadSession session) {
	}

	/**
	 * A session ended: its stream was released or discarded and its buffers given back.
	 * @param session the session
	 * @param durationNanos from opening to the end of its work
	 * @param failure the failure of its work, or {@code null}
	 */
	default void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
	}

	/**
	 * A session called a {@link StreamLibrary} (a cuBLAS operation, say).
	 * @param session the session
	 * @param library the library's name, e.g. {@code blas}
	 * @param operation the operation, e.g. {@code sgemm}
	 * @param nanos how long the call took on the calling thread: opening the stream's
	 * handle the first time, and enqueueing the work (a GPU runs it later, within the
	 * session's work; the host emulation too)
	 * @param failure what the call threw, or {@code null}
	 */
	default void libraryCalled(OffloadSession session, String library, String operation, long nanos,
			@Nullable Throwable failure) {
	}

	/**
	 * A device hit a sticky error and stopped lending.
	 * @param device the device
	 * @param cause the error
	 */
	default void deviceFailed(Device device, Throwable cause) {
	}

	/**
	 * The GPU reported a fault of a device (an Xid, through NVML); a fatal one fails the
	 * device too ({@link #deviceFailed}).
	 * @param device the device
	 * @param fault the fault
	 */
	default void gpuFault(Device device, GpuFault fault) {
	}

}
