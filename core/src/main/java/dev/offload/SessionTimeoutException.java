package dev.offload;

import java.time.Duration;

/**
 * A session's deadline passed while its caller waited, for a stream or for the session's
 * work. The session's stream is not lent again until that work is done: the device's
 * completion thread takes it back then.
 */
public class SessionTimeoutException extends OffloadException {

	private final int deviceId;

	private final String waitedFor;

	private final Duration waited;

	private final Duration timeout;

	/**
	 * Creates an exception.
	 * @param deviceId the session's device
	 * @param sessionId the session's id
	 * @param waitedFor what the caller waited for, such as {@code "a stream"} or
	 * {@code "its work (synchronize)"}
	 * @param waited how long this wait took
	 * @param timeout the session's timeout, counted from its opening
	 */
	public SessionTimeoutException(int deviceId, long sessionId, String waitedFor, Duration waited, Duration timeout) {
		super("Session " + sessionId + " on device " + deviceId + " timed out waiting " + waited.toMillis() + " ms for "
				+ waitedFor + " (session timeout " + timeout.toMillis() + " ms from its opening)");
		this.deviceId = deviceId;
		this.waitedFor = waitedFor;
		this.waited = waited;
		this.timeout = timeout;
	}

	/**
	 * Returns the session's device.
	 * @return the device id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Returns what the caller waited for.
	 * @return such as {@code "a stream"}
	 */
	public String getWaitedFor() {
		return this.waitedFor;
	}

	/**
	 * Returns how long the wait that timed out took.
	 * @return the time waited
	 */
	public Duration getWaited() {
		return this.waited;
	}

	/**
	 * Returns the session's timeout.
	 * @return the timeout, counted from the session's opening
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

}
