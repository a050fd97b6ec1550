package dev.offload;

/**
 * The device hit a sticky error earlier (an illegal address, a launch failure) and lends
 * no more streams.
 */
public class DeviceFailedException extends OffloadException {

	private final int deviceId;

	/**
	 * Creates an exception.
	 * @param deviceId the failed device
	 * @param cause the sticky error that failed it
	 */
	public DeviceFailedException(int deviceId, Throwable cause) {
		super("Device " + deviceId + " has failed and lends no streams: " + cause.getMessage(), cause);
		this.deviceId = deviceId;
	}

	/**
	 * Returns the failed device's id.
	 * @return the id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

}
