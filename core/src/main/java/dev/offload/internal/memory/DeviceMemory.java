package dev.offload.internal.memory;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * A device's memory, the one door of this package: the budget that admits buffers, the
 * cache of device blocks, the page-locked staging arena and the memory thread behind
 * them. The device, its sessions and its buffers talk to this type only.
 * <p>
 * The budget and the memory are apart on purpose: a session reserves budget for what it
 * will draw ({@link #acquireBudget}) before it takes memory ({@link #acquireDevice}), and
 * gives the reservation back as a whole when it ends; an application's own buffer charges
 * and refunds its size class. Not API.
 */
public final class DeviceMemory {

	private final MemoryBudget budget;

	private final BufferCache cache;

	private final String budgetSource;

	/**
	 * Creates a device's memory.
	 * @param backendDevice the device that allocates and frees
	 * @param info the device's description (its id, memory and stream priorities)
	 * @param budgetBytes the budget, from the device's {@code MemoryConfig}
	 * @param budgetSource what set it, for the statistics
	 * @param bufferCacheMaxBytes the most the cache keeps of closed buffers
	 * @param failures makes the exceptions this memory throws
	 */
	public DeviceMemory(BackendDevice backendDevice, DeviceInfo info, long budgetBytes, String budgetSource,
			long bufferCacheMaxBytes, MemoryFailures failures) {
		this.budget = new MemoryBudget(info.id(), budgetBytes, info.totalMemoryBytes(), failures);
		this.budgetSource = budgetSource;
		long ceiling = Math.min(this.budget.budgetBytes(), info.totalMemoryBytes());
		this.cache = new BufferCache(info.id(), backendDevice, info.totalMemoryBytes(), info.leastPriority(),
				bufferCacheMaxBytes, ceiling, this.budget::usedBytes, failures);
	}

	/**
	 * Returns the device memory a buffer of {@code bytes} takes: its size class.
	 * @param bytes the size, from 1 to 2^62
	 * @return the size class
	 * @throws IllegalArgumentException if {@code bytes} is larger than 2^62
	 */
	public static long sizeClass(long bytes) {
		return SizeClasses.sizeClass(bytes);
	}

	/**
	 * Takes {@code bytes} of the budget for an application's own buffer, waiting for them
	 * at normal priority, with no tenant and no deadline.
	 * @param bytes the bytes
	 * @param timeoutNanos the longest wait
	 * @throws dev.offload.MemoryBudgetExceededException if the budget did not admit the
	 * bytes in time, or is smaller than them
	 */
	public void acquireBudget(long bytes, long timeoutNanos) {
		this.budget.acquire(bytes, false, timeoutNanos, null);
	}

	/**
	 * Takes {@code bytes} of the budget for a tenant: admitted fairly against other
	 * tenants' waiters, within the tenant's limit.
	 * @param bytes the bytes
	 * @param highPriority whether the wait is queued in the high priority class, ahead of
	 * the normal one
	 * @param timeoutNanos the longest wait
	 * @param deadline the session's deadline, or {@code null}
	 * @param tenant the tenant, or {@code null} for none
	 * @throws dev.offload.MemoryBudgetExceededException if the budget or the tenant's
	 * limit did not admit the bytes in time, or is smaller than them
	 */
	public void acquireBudget(long bytes, boolean highPriority, long timeoutNanos, @Nullable SessionDeadline deadline,
			@Nullable MemoryTenant tenant) {
		this.budget.acquire(bytes, highPriority, timeoutNanos, deadline, tenant);
	}

	/**
	 * Takes {@code bytes} of the budget for a tenant if they fit now and nobody waits for
	 * the budget; never waits, and a refusal is not counted as one.
	 * @param bytes the bytes
	 * @param tenant the tenant, or {@code null} for none
	 * @return whether the bytes were taken
	 */
	public boolean tryAcquireBudget(long bytes, @Nullable MemoryTenant tenant) {
		return this.budget.tryAcquireNow(bytes, tenant);
	}

	/**
	 * Gives {@code bytes} of the budget back that a tenant took.
	 * @param bytes the bytes, as acquired
	 * @param tenant the tenant, or {@code null}
	 */
	public void releaseBudget(long bytes, @Nullable MemoryTenant tenant) {
		this.budget.release(bytes, tenant);
	}

	/**
	 * Gives {@code bytes} of the budget back.
	 * @param bytes the bytes, as acquired
	 */
	public void releaseBudget(long bytes) {
		this.budget.release(bytes);
	}

	/**
	 * Returns device memory for a buffer whose budget is already charged.
	 * @param bytes the size
	 * @param stream the stream whose order a new allocation joins, or {@code null}
	 * @return the memory
	 * @throws dev.offload.DeviceOutOfMemoryException if the device had no memory even
	 * after a trim
	 */
	public NativeMemory acquireDevice(long bytes, @Nullable BackendStream stream) {
		return this.cache.acquireDevice(bytes, stream);
	}

	/**
	 * Returns page-locked host memory from the staging arena.
	 * @param bytes the size
	 * @return the memory
	 * @throws dev.offload.HostStagingOutOfMemoryException if the host had no page-locked
	 * memory for the chunk needed
	 */
	public NativeMemory acquireHost(long bytes) {
		return this.cache.acquireHost(bytes);
	}

	/**
	 * Takes back device or host memory whose work is done (cached, or freed on the memory
	 * thread); the budget is the caller's to give back. Its owner gives
	 * {@code budgetBytesFollowing} of the budget back right after it (an application's
	 * buffer its own bytes, a session its reservation): the cache counts them as free
	 * when it bounds what it keeps, so that a working set within the budget stays cached.
	 * @param memory the block
	 * @param budgetBytesFollowing the budget's bytes given back next, at least 0
	 */
	public void release(NativeMemory memory, long budgetBytesFollowing) {
		this.cache.release(memory, budgetBytesFollowing);
	}

	/**
	 * Frees the cached device blocks, stream-ordered on the memory thread.
	 */
	public void trimDevice() {
		this.cache.trimDevice();
	}

	/**
	 * Returns the device memory kept for reuse.
	 * @return the cached bytes
	 */
	public long cachedBytes() {
		return this.cache.cachedBytes();
	}

	/**
	 * Returns the page-locked memory in use (taken and not given back).
	 * @return the bytes
	 */
	public long hostUsedBytes() {
		return this.cache.hostUsedBytes();
	}

	/**
	 * Returns a snapshot of the memory statistics.
	 * @return the statistics
	 */
	public MemoryCounts statistics() {
		return this.cache.statistics(this.budget, this.budgetSource);
	}

	/**
	 * Frees what is cached and stops the memory thread; called once every block is back.
	 */
	public void close() {
		this.cache.close();
	}

	/**
	 * Frees the cached device memory and stops the memory thread, but keeps the
	 * page-locked memory: called when the device closes while host buffers are still
	 * open, whose reads would crash on freed memory.
	 */
	public void closeKeepingHostMemory() {
		this.cache.closeKeepingHostMemory();
	}

}
