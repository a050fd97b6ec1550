package dev.offload.spi;

/**
 * The answer of {@link BackendProvider#probe()}: whether a backend can run here, how many
 * devices it would have, and a sentence for logs.
 *
 * @param available whether the backend can be created
 * @param deviceCount the devices it would have (0 when unavailable)
 * @param message the devices found, or why the backend is unavailable with the underlying
 * error
 */
public record BackendAvailability(boolean available, int deviceCount, String message) {

	/**
	 * Returns an answer for a backend that can run.
	 * @param deviceCount the devices it would have
	 * @param message a description of the devices
	 * @return the availability
	 */
	public static BackendAvailability available(int deviceCount, String message) {
		return new BackendAvailability(true, deviceCount, message);
	}

	/**
	 * Returns an answer for a backend that cannot run.
	 * @param message why
	 * @return the availability
	 */
	public static BackendAvailability unavailable(String message) {
		return new BackendAvailability(false, 0, message);
	}

}
