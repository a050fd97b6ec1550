package dev.offload;

/**
 * A snapshot of a {@link Device}'s memory: device memory and page-locked host staging as
 * Offload accounts them, its buffer cache, the driver allocations behind them, and the
 * budget's waits. Each value is read atomically, the set of them is not.
 *
 * @param budgetBytes the device memory sessions may hold at once
 * ({@code offload.memory.budget}); {@code Long.MAX_VALUE} when no budget is enforced
 * @param usedBytes device memory held by open buffers and admitted sessions'
 * reservations, rounded to size classes; exact when no request runs (under many threads
 * it is summed from the budget's stripes, and may be off by what moves meanwhile)
 * @param cachedBytes device memory kept by the buffer cache for reuse
 * @param peakBytes the most device memory in use at once since the device started: the
 * high-water of {@code usedBytes}, held by open buffers and admitted sessions'
 * reservations; never the budget's idle credit. Exact when requests do not race; under
 * races it may count, above that, the little allowance that moves between threads at that
 * moment
 * @param reservedPeakBytes the most device memory the budget had reserved at once since
 * the device started: the bytes in use and the credit that stripes of threads hold idle
 * so that they need not write a shared counter (at most an eighth of the budget, or of
 * the device's memory if less, above the bytes in use). It says how close the budget came
 * to its bound, not what the application needed: size a GPU from {@code peakBytes}
 * @param hostUsedBytes page-locked host memory held by open buffers
 * @param hostCachedBytes page-locked host memory kept for reuse (cache and staging arena)
 * @param hostPeakBytes the most page-locked host memory in use at once since the start
 * @param cacheHits acquisitions served from the cache
 * @param cacheMisses acquisitions that needed a driver allocation
 * @param cacheEvictions cached blocks given back to the driver
 * @param deviceAllocations driver allocations of device memory since the start
 * @param deviceFrees driver frees of device memory since the start
 * @param hostAllocations driver allocations of page-locked host memory since the start
 * @param hostFrees driver frees of page-locked host memory since the start
 * @param outOfMemoryRetries allocations the driver refused that were retried after
 * trimming the cache
 * @param outOfMemoryFailures allocations that failed with
 * {@link DeviceOutOfMemoryException} after the retry
 * @param waiting sessions waiting for the budget to admit their bytes
 * @param waitTimeouts waits for the budget that ended in
 * {@link MemoryBudgetExceededException}
 * @param synchronizingCalls driver calls that can synchronize the whole device (a
 * page-locked allocation, a free that is not stream-ordered) made on a request or
 * completion thread instead of the device's memory thread; stays still after warm-up
 * @param budgetSource what set the budget: {@code offload.memory.budget}, or MPS's pinned
 * limit where it is lower ({@link MemoryConfig.DeviceBudget#source()})
 */
public record MemoryStatistics(long budgetBytes, long usedBytes, long cachedBytes, long peakBytes,
		long reservedPeakBytes, long hostUsedBytes, long hostCachedBytes, long hostPeakBytes, long cacheHits,
		long cacheMisses, long cacheEvictions, long deviceAllocations, long deviceFrees, long hostAllocations,
		long hostFrees, long outOfMemoryRetries, long outOfMemoryFailures, int waiting, long waitTimeouts,
		long synchronizingCalls, String budgetSource) {

	/**
	 * Tells whether a budget is enforced.
	 * @return {@code true} unless the budget is {@code Long.MAX_VALUE}
	 */
	public boolean isBudgeted() {
		return this.budgetBytes != Long.MAX_VALUE;
	}

}
