package dev.offload;

/**
 * The stream pool is shut down (or shutting down) and lends no more streams.
 */
public class StreamPoolClosedException extends OffloadException {

	/**
	 * Creates an exception.
	 * @param deviceId the pool's device
	 */
	public StreamPoolClosedException(int deviceId) {
		super("The stream pool of device " + deviceId + " is shut down and lends no more streams");
	}

	/**
	 * Creates an exception for work that the shutdown cut short.
	 * @param message what was cut short, naming the device
	 */
	public StreamPoolClosedException(String message) {
		super(message);
	}

}
