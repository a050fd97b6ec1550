package dev.offload;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A bounded stream pool had no idle stream within the borrow timeout. The message carries
 * the pool's state.
 */
public class StreamBorrowTimeoutException extends OffloadException {

	private final int deviceId;

	private final StreamPoolStatistics statistics;

	private final Duration waited;

	/**
	 * Creates an exception.
	 * @param deviceId the pool's device
	 * @param statistics the pool's state when the borrow gave up
	 * @param waited how long the borrow waited
	 */
	public StreamBorrowTimeoutException(int deviceId, StreamPoolStatistics statistics, Duration waited) {
		this(deviceId, statistics, waited, null);
	}

	/**
	 * Creates an exception for a borrow of a priority class with a lane.
	 * @param deviceId the pool's device
	 * @param statistics the pool's state when the borrow gave up
	 * @param waited how long the borrow waited
	 * @param lane the state of the borrow's lane, such as {@code "NORMAL lane 8/8 lent"},
	 * or {@code null}
	 */
	public StreamBorrowTimeoutException(int deviceId, StreamPoolStatistics statistics, Duration waited,
			@Nullable String lane) {
		super("Stream pool of device " + deviceId + " - no stream available, request timed out after "
				+ waited.toMillis() + "ms (" + ((lane != null) ? lane + ", " : "") + "size=" + statistics.size()
				+ ", max=" + statistics.maxSize() + ", inUse=" + statistics.inUse() + ", idle=" + statistics.idle()
				+ ", waiting=" + statistics.waiting() + ")");
		this.deviceId = deviceId;
		this.statistics = statistics;
		this.waited = waited;
	}

	/**
	 * Returns the pool's device.
	 * @return the device id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Returns the pool's state when the borrow gave up.
	 * @return the statistics
	 */
	public StreamPoolStatistics getStatistics() {
		return this.statistics;
	}

	/**
	 * Returns how long the borrow waited.
	 * @return the time waited
	 */
	public Duration getWaited() {
		return this.waited;
	}

}
