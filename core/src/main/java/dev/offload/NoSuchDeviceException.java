package dev.offload;

import java.util.List;

/**
 * No device has the requested id; the message lists the ids that exist.
 */
public class NoSuchDeviceException extends OffloadException {

	private final int deviceId;

	private final List<Integer> availableIds;

	/**
	 * Creates an exception.
	 * @param deviceId the id asked for
	 * @param availableIds the ids that exist
	 */
	public NoSuchDeviceException(int deviceId, List<Integer> availableIds) {
		super("No device with id " + deviceId + "; the devices are " + availableIds);
		this.deviceId = deviceId;
		this.availableIds = List.copyOf(availableIds);
	}

	/**
	 * Returns the id asked for.
	 * @return the id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Returns the ids that exist.
	 * @return the ids
	 */
	public List<Integer> getAvailableIds() {
		return this.availableIds;
	}

}
