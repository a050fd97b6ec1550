package dev.offload;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

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

	private final @Nullable String tenant;

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
		this.tenant = null;
	}

	/**
	 * Creates an exception for a request that its tenant's memory limit did not admit
	 * ({@link TenantPolicy.TenantShare#maxMemoryBytes()}).
	 * @param deviceId the device
	 * @param tenant the tenant
	 * @param tenantLimitBytes the tenant's limit
	 * @param tenantHeldBytes the bytes the tenant held when the request gave up
	 * @param requestedBytes the bytes the request asked for
	 * @param waited how long the request waited ({@link Duration#ZERO} for a request
	 * larger than the limit)
	 */
	public MemoryBudgetExceededException(int deviceId, String tenant, long tenantLimitBytes, long tenantHeldBytes,
			long requestedBytes, Duration waited) {
		super("Memory limit of tenant '" + tenant + "' on device " + deviceId + " exceeded: requested " + requestedBytes
				+ " bytes, the tenant holds " + tenantHeldBytes + " of its limit of " + tenantLimitBytes
				+ " bytes (its max-memory in the tenant policy); waited " + waited.toMillis() + "ms");
		this.deviceId = deviceId;
		this.budgetBytes = tenantLimitBytes;
		this.usedBytes = tenantHeldBytes;
		this.requestedBytes = requestedBytes;
		this.waited = waited;
		this.tenant = tenant;
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

	/**
	 * Returns the tenant whose own memory limit the request exceeded.
	 * @return the tenant, or {@code null} if the device's budget was exceeded (then
	 * {@link #getBudgetBytes()} is the budget; else it is the tenant's limit)
	 */
	public @Nullable String getTenant() {
		return this.tenant;
	}

}
