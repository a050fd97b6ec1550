package dev.offload.internal.memory;

import java.time.Duration;

/**
 * The failures this package reports, made by its caller: the memory names no type of the
 * API package, which in turn opens the memory, so the two form no package cycle. The
 * device gives the API's exceptions ({@code DeviceOutOfMemoryException},
 * {@code MemoryBudgetExceededException} and the rest); each method returns the exception
 * for this package to throw. Not API.
 */
public interface MemoryFailures {

	/**
	 * Says whether a backend's failure to allocate means the memory ran out, which the
	 * cache answers with a trim and one more try.
	 * @param failure what the backend threw
	 * @return {@code true} for an out-of-memory failure
	 */
	boolean isOutOfMemory(RuntimeException failure);

	/**
	 * Returns the failure of a device allocation that found no memory even after a trim.
	 * @param deviceId the device
	 * @param requestedBytes the size asked for
	 * @param usedBytes the budget's bytes in use
	 * @param cachedBytes the bytes the cache held
	 * @param freeBytes the device's free memory, or a negative number when unknown
	 * @param totalBytes the device's memory
	 * @param cause the backend's failure
	 * @return the exception to throw
	 */
	RuntimeException deviceOutOfMemory(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long freeBytes, long totalBytes, RuntimeException cause);

	/**
	 * Returns the failure of a page-locked staging allocation the host refused.
	 * @param deviceId the device
	 * @param requestedBytes the size asked for
	 * @param usedBytes the staging bytes in use
	 * @param cachedBytes the staging bytes kept
	 * @param totalBytes the staging bytes held in all
	 * @param cause the backend's failure
	 * @return the exception to throw
	 */
	RuntimeException hostStagingOutOfMemory(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long totalBytes, RuntimeException cause);

	/**
	 * Returns the failure of a request the budget did not admit.
	 * @param deviceId the device
	 * @param budgetBytes the budget
	 * @param usedBytes its bytes in use
	 * @param requestedBytes the size asked for
	 * @param waited how long the request waited
	 * @return the exception to throw
	 */
	RuntimeException budgetExceeded(int deviceId, long budgetBytes, long usedBytes, long requestedBytes,
			Duration waited);

	/**
	 * Returns the failure of a request its tenant's limit did not admit.
	 * @param deviceId the device
	 * @param tenant the tenant's name
	 * @param limitBytes the tenant's limit
	 * @param heldBytes what the tenant holds
	 * @param requestedBytes the size asked for
	 * @param waited how long the request waited
	 * @return the exception to throw
	 */
	RuntimeException tenantLimitExceeded(int deviceId, String tenant, long limitBytes, long heldBytes,
			long requestedBytes, Duration waited);

	/**
	 * Returns the failure of a wait for the budget that was interrupted (the thread's
	 * interrupt status is set again before it is thrown).
	 * @param message what was waited for
	 * @param cause the interruption
	 * @return the exception to throw
	 */
	RuntimeException interrupted(String message, InterruptedException cause);

}
