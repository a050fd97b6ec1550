package dev.offload;

/**
 * One tenant's use of a device's stream pool and memory budget, from
 * {@link StreamPool#tenantStatistics()}. The tenants named in the {@link TenantPolicy},
 * and the first others up to {@link TenantPolicy#maxTrackedTenants()}, are counted by
 * name; the rest together as {@link TenantPolicy#OTHER_TENANTS}.
 *
 * @param tenant the tenant's name ({@link TenantPolicy#DEFAULT_TENANT} for sessions
 * without one)
 * @param inUse the streams it holds now
 * @param waiting its borrowers waiting now
 * @param borrows its borrows so far
 * @param totalWaitNanos how long its borrows waited in all, in nanoseconds
 * @param memoryWaits its sessions' and buffers' requests that waited for the memory
 * budget (a request admitted at once is not counted)
 * @param memoryWaitNanos how long those requests waited in all, in nanoseconds
 * @param memoryRefusals its requests the budget or its memory limit refused
 * ({@link MemoryBudgetExceededException})
 */
public record TenantStatistics(String tenant, int inUse, int waiting, long borrows, long totalWaitNanos,
		long memoryWaits, long memoryWaitNanos, long memoryRefusals) {

}
