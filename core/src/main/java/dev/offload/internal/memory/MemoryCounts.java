package dev.offload.internal.memory;

/**
 * A snapshot of a device's memory counts, which the device turns into the API's
 * {@code MemoryStatistics} (this package names no API type); the components are the
 * statistics', in their order and with their meaning. Not API.
 *
 * @param budgetBytes the budget
 * @param usedBytes the budget's bytes in use
 * @param cachedBytes the device bytes the cache keeps
 * @param peakBytes the most in use at once
 * @param reservedPeakBytes the most reserved at once
 * @param hostUsedBytes the page-locked staging bytes in use
 * @param hostCachedBytes the staging bytes kept
 * @param hostPeakBytes the most staging in use at once
 * @param cacheHits device blocks served from the cache
 * @param cacheMisses device blocks allocated
 * @param cacheEvictions cached blocks freed to make room
 * @param deviceAllocations device allocations from the backend
 * @param deviceFrees device frees to the backend
 * @param hostAllocations page-locked allocations from the backend
 * @param hostFrees page-locked frees to the backend
 * @param outOfMemoryRetries allocations that ran out, trimmed and tried again
 * @param outOfMemoryFailures allocations that failed for want of memory
 * @param waiting requests waiting for the budget now
 * @param waitTimeouts waits for the budget that ended unadmitted
 * @param synchronizingCalls allocations made on a caller's thread, not the memory thread
 * @param budgetSource what set the budget
 */
public record MemoryCounts(long budgetBytes, long usedBytes, long cachedBytes, long peakBytes, long reservedPeakBytes,
		long hostUsedBytes, long hostCachedBytes, long hostPeakBytes, long cacheHits, long cacheMisses,
		long cacheEvictions, long deviceAllocations, long deviceFrees, long hostAllocations, long hostFrees,
		long outOfMemoryRetries, long outOfMemoryFailures, int waiting, long waitTimeouts, long synchronizingCalls,
		String budgetSource) {

}
