package dev.offload.spring.actuate.endpoint;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.StreamPool;
import dev.offload.StreamPoolStatistics;
import dev.offload.TenantStatistics;
import dev.offload.leak.LeakDetector;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadTemplate;
import dev.offload.spi.BackendSelection;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

/**
 * {@link Endpoint @Endpoint} that shows each device of a {@link DeviceRegistry} and how
 * full its stream pool is: {@code /actuator/streampools} for all devices,
 * {@code /actuator/streampools/{device}} for one.
 */
@Endpoint(id = "streampools")
public class StreamPoolsEndpoint {

	private final DeviceRegistry registry;

	private final @Nullable LeakDetector leakDetector;

	private final @Nullable BackendSelection selection;

	private final @Nullable OffloadTemplate template;

	/**
	 * Creates an endpoint.
	 * @param registry the devices to show
	 * @param leakDetector the leak detector whose counts to show, or {@code null} if leak
	 * detection is off
	 */
	public StreamPoolsEndpoint(DeviceRegistry registry, @Nullable LeakDetector leakDetector) {
		this(registry, leakDetector, null);
	}

	/**
	 * Creates an endpoint that also says why the backend was chosen.
	 * @param registry the devices to show
	 * @param leakDetector the leak detector whose counts to show, or {@code null} if leak
	 * detection is off
	 * @param selection how the backend was chosen, or {@code null} if the application
	 * chose it itself
	 */
	public StreamPoolsEndpoint(DeviceRegistry registry, @Nullable LeakDetector leakDetector,
			@Nullable BackendSelection selection) {
		this(registry, leakDetector, selection, null);
	}

	/**
	 * Creates an endpoint that also shows the template's batchers.
	 * @param registry the devices to show
	 * @param leakDetector the leak detector whose counts to show, or {@code null} if leak
	 * detection is off
	 * @param selection how the backend was chosen, or {@code null} if the application
	 * chose it itself
	 * @param template the template whose {@link Batcher batchers} to show, or
	 * {@code null}
	 */
	public StreamPoolsEndpoint(DeviceRegistry registry, @Nullable LeakDetector leakDetector,
			@Nullable BackendSelection selection, @Nullable OffloadTemplate template) {
		this.template = template;
		this.registry = registry;
		this.leakDetector = (leakDetector != null && leakDetector.isEnabled()) ? leakDetector : null;
		this.selection = selection;
	}

	/**
	 * Describes every device.
	 * @return the backend and the devices
	 */
	@ReadOperation
	public StreamPoolsDescriptor streamPools() {
		List<DeviceDescriptor> devices = this.registry.devices().stream().map(this::describe).toList();
		Duration threshold = (this.leakDetector != null) ? this.leakDetector.threshold() : null;
		String reason = (this.selection != null) ? this.selection.reason() : null;
		String binding = (this.selection != null) ? this.selection.binding() : null;
		List<BatcherDescriptor> batchers = (this.template != null)
				? this.template.batchers().stream().map(BatcherDescriptor::of).toList() : List.of();
		return new StreamPoolsDescriptor(this.registry.backend().name(), binding, reason, this.registry.isClosed(),
				(threshold != null) ? threshold.toString() : null, devices, batchers);
	}

	/**
	 * Describes one device.
	 * @param device the device's id
	 * @return the device, or {@code null} (a 404) if there is no such device
	 */
	@ReadOperation
	public @Nullable DeviceDescriptor device(@Selector int device) {
		return this.registry.ids().contains(device) ? describe(this.registry.device(device)) : null;
	}

	private DeviceDescriptor describe(Device device) {
		String error = device.failure().map(StreamPoolsEndpoint::errorText).orElse(null);
		long leaked = (this.leakDetector != null) ? this.leakDetector.leakedSessions(device.id()) : 0;
		return new DeviceDescriptor(device.id(), device.name(), device.backendName(), device.isHealthy(), error,
				device.activeSessions(), leaked, PoolDescriptor.of(device.streamPool()),
				SharingDescriptor.of(device.info()), MemoryDescriptor.of(device.memoryStatistics()));
	}

	static String errorText(Throwable failure) {
		return (failure.getMessage() != null) ? failure.getMessage() : failure.getClass().getName();
	}

	/**
	 * Every device of the registry.
	 *
	 * @param backend the backend running the devices ({@code cuda} or {@code host})
	 * @param backendBinding how the backend reaches its runtime ({@code ffm} or
	 * {@code jcuda} for CUDA, {@code host} for the host backend), or {@code null} if the
	 * application chose the backend
	 * @param backendReason why that backend and binding: the probe's message, or
	 * {@code null} if the application chose it
	 * @param closed whether the registry was shut down
	 * @param leakDetectionThreshold the leak detection threshold as an ISO-8601 duration,
	 * or {@code null} if leak detection is off
	 * @param devices the devices, in id order
	 * @param batchers the template's dynamic batchers
	 */
	public record StreamPoolsDescriptor(String backend, @Nullable String backendBinding, @Nullable String backendReason,
			boolean closed, @Nullable String leakDetectionThreshold, List<DeviceDescriptor> devices,
			List<BatcherDescriptor> batchers) implements OperationResponseBody {

	}

	/**
	 * One dynamic batcher and what it has done.
	 *
	 * @param name the batcher's name (its kernel's, or its {@code @Batched} method's)
	 * @param maxBatchSize the most items in one batch
	 * @param maxDelay how long the first item of a batch waits, as an ISO-8601 duration
	 * @param queued items waiting now
	 * @param maxQueue the most items that may wait
	 * @param batches batches run since the start
	 * @param items items in those batches
	 * @param meanBatchSize items per batch, on average
	 * @param refused items refused because the queue was full
	 * @param expired items whose deadline passed while queued
	 * @param failed items that failed in their batch
	 */
	public record BatcherDescriptor(String name, int maxBatchSize, String maxDelay, int queued, int maxQueue,
			long batches, long items, double meanBatchSize, long refused, long expired, long failed) {

		static BatcherDescriptor of(Batcher<?, ?> batcher) {
			Batcher.Statistics statistics = batcher.statistics();
			return new BatcherDescriptor(statistics.name(), batcher.policy().maxBatchSize(),
					batcher.policy().maxDelay().toString(), statistics.queued(), statistics.maxQueue(),
					statistics.batches(), statistics.items(), statistics.meanBatchSize(), statistics.refused(),
					statistics.expired(), statistics.failed());
		}

	}

	/**
	 * One device and its stream pool.
	 *
	 * @param id the device's id
	 * @param name the device's name
	 * @param backend the backend running it
	 * @param healthy whether it can take work
	 * @param error the sticky error that failed it, or {@code null} while it is healthy
	 * @param activeSessions sessions opened and not yet ended
	 * @param leakedSessions sessions that stayed open longer than the leak detection
	 * threshold since the start (0 when leak detection is off)
	 * @param pool the state of its stream pool
	 * @param sharing how the device is shared with other processes
	 * @param memory its memory, cache and budget
	 */
	public record DeviceDescriptor(int id, String name, String backend, boolean healthy, @Nullable String error,
			int activeSessions, long leakedSessions, PoolDescriptor pool, SharingDescriptor sharing,
			MemoryDescriptor memory) implements OperationResponseBody {

	}

	/**
	 * How a device is shared with other processes: MIG, MPS, time-slicing, or none of
	 * them ({@code exclusive}, always so on the host emulation).
	 *
	 * @param mode {@code exclusive}, or the modes that hold joined by {@code +}
	 * ({@code mig}, {@code mps}, {@code time-slicing})
	 * @param mig the MIG instance, or {@code null} if the device is not one
	 * @param mps the MPS client settings, or {@code null} if the process is no MPS client
	 * @param timeSlicing the time-slicing the deployment declared, or {@code null}
	 * @param usableMemoryBytes the device memory the process should use: the total, or
	 * less under MPS's pinned limit or a declared time-slicing's share
	 * ({@link DeviceInfo#usableMemoryBytes()})
	 * @param evidence how each mode was recognised, or why a configured one does not hold
	 */
	public record SharingDescriptor(String mode, GpuSharing.@Nullable Mig mig, GpuSharing.@Nullable Mps mps,
			GpuSharing.@Nullable TimeSlicing timeSlicing, long usableMemoryBytes, List<String> evidence) {

		static SharingDescriptor of(DeviceInfo info) {
			GpuSharing sharing = info.sharing();
			return new SharingDescriptor(sharing.mode(), sharing.mig(), sharing.mps(), sharing.timeSlicing(),
					info.usableMemoryBytes(), sharing.evidence());
		}

	}

	/**
	 * The memory of a device as Offload accounts it.
	 *
	 * @param budget the device memory sessions may hold at once, or {@code null} if no
	 * budget is enforced
	 * @param budgetSource what set the budget: {@code offload.memory.budget}, or MPS's
	 * pinned limit ({@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}) where it is lower
	 * @param used device memory held by open buffers and admitted sessions (bytes)
	 * @param cached device memory kept by the buffer cache for reuse (bytes)
	 * @param peak the most device memory in use at once since the start (bytes)
	 * @param budgetUse {@code used / budget} between 0 and 1, or {@code null} without a
	 * budget
	 * @param hostUsed page-locked host memory held by open buffers (bytes)
	 * @param hostCached page-locked host memory kept for reuse (bytes)
	 * @param hostPeak the most page-locked host memory in use at once (bytes)
	 * @param cacheHits acquisitions served from the cache
	 * @param cacheMisses acquisitions that needed a driver allocation
	 * @param cacheEvictions cached blocks given back to the driver
	 * @param driverAllocations driver allocations of device and host memory, by kind
	 * @param driverFrees driver frees of device and host memory, by kind
	 * @param outOfMemoryRetries allocations retried after the driver ran out of memory
	 * @param outOfMemoryFailures allocations that failed after the retry
	 * @param waiting sessions waiting for the budget now
	 * @param waitTimeouts waits for the budget that gave up
	 */
	public record MemoryDescriptor(@Nullable Long budget, String budgetSource, long used, long cached, long peak,
			@Nullable Double budgetUse, long hostUsed, long hostCached, long hostPeak, long cacheHits, long cacheMisses,
			long cacheEvictions, Map<String, Long> driverAllocations, Map<String, Long> driverFrees,
			long outOfMemoryRetries, long outOfMemoryFailures, int waiting, long waitTimeouts) {

		static MemoryDescriptor of(MemoryStatistics statistics) {
			boolean budgeted = statistics.isBudgeted();
			return new MemoryDescriptor(budgeted ? statistics.budgetBytes() : null, statistics.budgetSource(),
					statistics.usedBytes(), statistics.cachedBytes(), statistics.peakBytes(),
					budgeted ? (double) statistics.usedBytes() / Math.max(1, statistics.budgetBytes()) : null,
					statistics.hostUsedBytes(), statistics.hostCachedBytes(), statistics.hostPeakBytes(),
					statistics.cacheHits(), statistics.cacheMisses(), statistics.cacheEvictions(),
					Map.of("device", statistics.deviceAllocations(), "host", statistics.hostAllocations()),
					Map.of("device", statistics.deviceFrees(), "host", statistics.hostFrees()),
					statistics.outOfMemoryRetries(), statistics.outOfMemoryFailures(), statistics.waiting(),
					statistics.waitTimeouts());
		}

	}

	/**
	 * The state of a stream pool.
	 *
	 * @param size streams alive, idle or lent
	 * @param inUse streams lent to sessions
	 * @param idle streams waiting in the pool
	 * @param peakInUse the most streams lent at once since the start
	 * @param max the pool's bound, or {@code null} if it is unbounded
	 * @param bounded whether the pool has a bound
	 * @param waiting borrowers waiting for a stream (only a bounded pool makes them wait)
	 * @param borrows streams lent since the start
	 * @param grows times the pool grew beyond its initial size
	 * @param created streams created since the start
	 * @param destroyed streams destroyed since the start
	 * @param discarded streams destroyed because their work failed
	 * @param timeouts borrows that gave up after the borrow timeout
	 * @param saturated whether a borrower waits for a stream now
	 * @param oldestWait how long the borrower that has waited longest has waited so far,
	 * as an ISO-8601 duration
	 * @param pendingCompletions sessions handed to the completion thread whose work is
	 * not done yet
	 * @param sessionTimeouts sessions whose deadline passed while their caller waited
	 * @param byPriority size, in use and idle per priority class that has streams
	 * ({@code NORMAL}, {@code HIGH})
	 * @param tenants each tenant's streams in use, borrowers waiting, borrows and their
	 * total wait
	 */
	public record PoolDescriptor(int size, int inUse, int idle, int peakInUse, @Nullable Integer max, boolean bounded,
			int waiting, long borrows, long grows, long created, long destroyed, long discarded, long timeouts,
			boolean saturated, String oldestWait, int pendingCompletions, long sessionTimeouts,
			Map<String, PriorityDescriptor> byPriority, List<TenantDescriptor> tenants) {

		static PoolDescriptor of(StreamPool pool) {
			return of(pool.statistics(), pool.tenantStatistics());
		}

		static PoolDescriptor of(StreamPoolStatistics statistics, List<TenantStatistics> tenants) {
			Map<String, PriorityDescriptor> byPriority = new TreeMap<>();
			statistics.byPriority()
				.forEach((priority, value) -> byPriority.put(priority.name(),
						new PriorityDescriptor(value.size(), value.inUse(), value.idle())));
			return new PoolDescriptor(statistics.size(), statistics.inUse(), statistics.idle(), statistics.peakInUse(),
					statistics.isBounded() ? statistics.maxSize() : null, statistics.isBounded(), statistics.waiting(),
					statistics.borrows(), statistics.grows(), statistics.created(), statistics.destroyed(),
					statistics.discarded(), statistics.timeouts(), statistics.waiting() > 0,
					statistics.oldestWait().toString(), statistics.pendingCompletions(), statistics.sessionTimeouts(),
					Collections.unmodifiableMap(byPriority), tenants.stream().map(TenantDescriptor::of).toList());
		}

	}

	/**
	 * One tenant's use of a pool ({@link StreamPool#tenantStatistics()}): the tenants the
	 * policy names and the first others up to its tracked bound, the rest together as
	 * {@code other}.
	 *
	 * @param tenant the tenant ({@code default} for sessions without one)
	 * @param inUse streams its sessions hold
	 * @param waiting its borrowers waiting
	 * @param borrows its borrows so far
	 * @param totalWait how long its borrows waited in all, as an ISO-8601 duration
	 * @param memoryWaits its requests that waited for the memory budget
	 * @param memoryWait how long they waited in all, as an ISO-8601 duration
	 * @param memoryRefusals its requests the budget or its memory limit refused
	 */
	public record TenantDescriptor(String tenant, int inUse, int waiting, long borrows, String totalWait,
			long memoryWaits, String memoryWait, long memoryRefusals) {

		static TenantDescriptor of(TenantStatistics statistics) {
			return new TenantDescriptor(statistics.tenant(), statistics.inUse(), statistics.waiting(),
					statistics.borrows(), Duration.ofNanos(statistics.totalWaitNanos()).toString(),
					statistics.memoryWaits(), Duration.ofNanos(statistics.memoryWaitNanos()).toString(),
					statistics.memoryRefusals());
		}

	}

	/**
	 * The streams of one priority class.
	 *
	 * @param size streams alive
	 * @param inUse streams lent
	 * @param idle streams waiting in the pool
	 */
	public record PriorityDescriptor(int size, int inUse, int idle) {

	}

}
