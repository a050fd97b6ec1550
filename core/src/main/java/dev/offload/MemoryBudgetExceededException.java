package dev.offload;

import java.time.Duration;

/**
 * A session's memory did not fit in its device's budget ({@code offload.memory.budget}):
 * at once when the request alone is larger than the budget, otherwise when its wait for
 * other sessions' bytes ended (its deadline, or the borrow timeout). Retryable: nothing
 * failed on the device.
 */
public class MemoryBudgetExceededException extends OffloadException {

	private final int deviceId;

	private final long budgetBytes;

	private final long usedBytes;

	private final long requestedBytes;

	private final Duration waited;

	/**
	 * Creates an exception.
	 * @param deviceId the device
	 * @param budgetBytes the device's budget
	 * @param usedBytes the bytes held by others when the request gave up
	 * @param requestedBytes the bytes the request asked for
	 * @param waited how long the request waited ({@link Duration#ZERO} for a request
	 * larger than the budget)
	 */
	public MemoryBudgetExceededException(int deviceId, long budgetBytes, long usedBytes, long requestedBytes,
			Duration waited) {
		super(message(deviceId, budgetBytes, usedBytes, requestedBytes, waited));
		this.deviceId = deviceId;
		this.budgetBytes = budgetBytes;
		this.usedBytes = usedBytes;
		this.requestedBytes = requestedBytes;
		this.waited = waited;
	}

	private static String message(int deviceId, long budgetBytes, long usedBytes, long requestedBytes,
			Duration waited) {
		if (requestedBytes > budgetBytes) {
			return "Memory budget of device " + deviceId + " exceeded: requested " + requestedBytes
					+ " bytes is more than the whole budget of " + budgetBytes
					+ " bytes (raise offload.memory.budget or split the work)";
		}
		return "Memory budget of device " + deviceId + " exceeded: requested " + requestedBytes + " bytes, in use "
				+ usedBytes + " of a budget of " + budgetBytes + " bytes; waited " + waited.toMillis() + "ms";
	}

	/**
	 * Returns the device.
	 * @return the device id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Returns the device's budget.
	 * @return the budget in bytes
	 */
	public long getBudgetBytes() {
		return this.budgetBytes;
	}

	/**
	 * Returns the bytes held by others when the request gave up.
	 * @return the bytes in use
	 */
	public long getUsedBytes() {
		return this.usedBytes;
	}

	/**
	 * Returns the bytes the request asked for.
	 * @return the requested bytes
	 */
	public long getRequestedBytes() {
		return this.requestedBytes;
	}

	/**
	 * Returns how long the request waited.
	 * @return the time waited
	 */
	public Duration getWaited() {
		return this.waited;
	}

}
