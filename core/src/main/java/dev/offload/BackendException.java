package dev.offload;

import org.jspecify.annotations.Nullable;

/**
 * A backend call failed: names the call, the runtime's error name and text, and the
 * device.
 * <p>
 * A {@link #isSticky() sticky} error leaves the device unusable (CUDA's illegal address,
 * launch failure and the like): the device is marked failed and stops lending streams.
 * <p>
 * Backends ({@link dev.offload.spi.Backend}) throw it and the API passes it on as it is,
 * so an application catches every failure of Offload, the device's included, as an
 * {@link OffloadException}, as Spring's {@code DataAccessException} roots every data
 * access failure. It lives here rather than in {@code dev.offload.spi} because the
 * backend contract depends on nothing of the API (backends themselves may).
 */
public class BackendException extends OffloadException {

	private final String call;

	private final String errorName;

	private final String errorText;

	private final int deviceId;

	private final boolean sticky;

	/**
	 * Creates an exception.
	 * @param call the runtime call that failed, e.g. {@code cuStreamSynchronize}
	 * @param errorName the runtime's error name, e.g. {@code CUDA_ERROR_ILLEGAL_ADDRESS}
	 * @param errorText the runtime's description of the error
	 * @param deviceId the device, or -1 when none applies
	 * @param sticky whether the error leaves the device unusable
	 * @param cause the underlying exception, or {@code null}
	 */
	public BackendException(String call, String errorName, String errorText, int deviceId, boolean sticky,
			@Nullable Throwable cause) {
		super(message(call, errorName, errorText, deviceId, sticky), cause);
		this.call = call;
		this.errorName = errorName;
		this.errorText = errorText;
		this.deviceId = deviceId;
		this.sticky = sticky;
	}

	private static String message(String call, String errorName, String errorText, int deviceId, boolean sticky) {
		String device = (deviceId >= 0) ? " on device " + deviceId : "";
		String text = (errorText != null && !errorText.isEmpty()) ? " (" + errorText + ")" : "";
		return call + " failed" + device + ": " + errorName + text
				+ (sticky ? "; the device is unusable until the process restarts" : "");
	}

	/**
	 * Returns the runtime call that failed.
	 * @return the call's name
	 */
	public String getCall() {
		return this.call;
	}

	/**
	 * Returns the runtime's error name.
	 * @return e.g. {@code CUDA_ERROR_ILLEGAL_ADDRESS}
	 */
	public String getErrorName() {
		return this.errorName;
	}

	/**
	 * Returns the runtime's description of the error.
	 * @return the text, possibly empty
	 */
	public String getErrorText() {
		return this.errorText;
	}

	/**
	 * Returns the device the call was made for.
	 * @return the device id, or -1
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Tells whether the error leaves the device unusable.
	 * @return {@code true} for sticky errors
	 */
	public boolean isSticky() {
		return this.sticky;
	}

	/**
	 * Tells whether the runtime had no memory for an allocation
	 * ({@code CUDA_ERROR_OUT_OF_MEMORY}, the host emulation's
	 * {@code HOST_ERROR_OUT_OF_MEMORY}).
	 * @return {@code true} for an out-of-memory error
	 */
	public boolean isOutOfMemory() {
		return this.errorName != null && this.errorName.endsWith("_ERROR_OUT_OF_MEMORY");
	}

}
