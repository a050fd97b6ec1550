package dev.offload.spring.metrics;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;

/**
 * {@link MeterBinder} for the memory of each device of a {@link DeviceRegistry}, read
 * from {@link Device#memoryStatistics()}: gauges {@code offload.memory.used},
 * {@code offload.memory.cached}, {@code offload.memory.peak} (the most in use at once),
 * {@code offload.memory.reserved.peak} (the most the budget reserved at once, its idle
 * credit included) and {@code offload.memory.budget} (bytes; the budget is {@code NaN}
 * when none is enforced, so that used / budget gives no value rather than zero),
 * {@code offload.memory.budget.usage} (used / budget, from 0 to 1, {@code NaN} without a
 * budget: the utilisation a load-aware gateway reads beside {@code offload.queued}), the
 * same three for page-locked host staging ({@code offload.memory.host.*}) and
 * {@code offload.memory.waiting} (sessions waiting for the budget); counters
 * {@code offload.memory.cache.requests} (tagged {@code result} {@code hit} or
 * {@code miss}), {@code offload.memory.cache.evictions},
 * {@code offload.memory.driver.allocations} and {@code offload.memory.driver.frees}
 * (tagged {@code kind} {@code device} or {@code host}),
 * {@code offload.memory.oom.retries}, {@code offload.memory.oom.failures} and
 * {@code offload.memory.wait.timeouts}. Each is tagged {@code device} and
 * {@code backend}.
 */
public final class OffloadMemoryMetrics implements MeterBinder {

	static final String USED = "offload.memory.used";

	static final String CACHED = "offload.memory.cached";

	static final String PEAK = "offload.memory.peak";

	static final String RESERVED_PEAK = "offload.memory.reserved.peak";

	static final String BUDGET = "offload.memory.budget";

	static final String BUDGET_USAGE = "offload.memory.budget.usage";

	static final String HOST_USED = "offload.memory.host.used";

	static final String HOST_CACHED = "offload.memory.host.cached";

	static final String HOST_PEAK = "offload.memory.host.peak";

	static final String WAITING = "offload.memory.waiting";

	static final String CACHE_REQUESTS = "offload.memory.cache.requests";

	static final String CACHE_EVICTIONS = "offload.memory.cache.evictions";

	static final String DRIVER_ALLOCATIONS = "offload.memory.driver.allocations";

	static final String DRIVER_FREES = "offload.memory.driver.frees";

	static final String OOM_RETRIES = "offload.memory.oom.retries";

	static final String OOM_FAILURES = "offload.memory.oom.failures";

	static final String WAIT_TIMEOUTS = "offload.memory.wait.timeouts";

	private final DeviceRegistry registry;

	/**
	 * Creates a binder.
	 * @param registry the devices whose memory to measure
	 */
	public OffloadMemoryMetrics(DeviceRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		for (Device device : this.registry.devices()) {
			bindTo(meterRegistry, device);
		}
	}

	private void bindTo(MeterRegistry registry, Device device) {
		Tags tags = OffloadMeters.tags(device);
		bytes(registry, USED, "Device memory held by open buffers and admitted sessions", device,
				MemoryStatistics::usedBytes, tags);
		bytes(registry, CACHED, "Device memory kept by the buffer cache for reuse", device,
				MemoryStatistics::cachedBytes, tags);
		bytes(registry, PEAK, "The most device memory in use at once since the start", device,
				MemoryStatistics::peakBytes, tags);
		bytes(registry, RESERVED_PEAK,
				"The most device memory the budget reserved at once since the start: the bytes in use and the "
						+ "budget's idle credit",
				device, MemoryStatistics::reservedPeakBytes, tags);
		Gauge.builder(BUDGET, device, (d) -> budget(d.memoryStatistics()))
			.description("Device memory sessions may hold at once; NaN when no budget is enforced")
			.baseUnit(BaseUnits.BYTES)
			.tags(tags)
			.register(registry);
		Gauge.builder(BUDGET_USAGE, device, (d) -> usage(d.memoryStatistics()))
			.description("Device memory in use as a share of the budget, from 0 to 1; NaN when no budget is enforced")
			.baseUnit("ratio")
			.tags(tags)
			.register(registry);
		bytes(registry, HOST_USED, "Page-locked host memory held by open buffers", device,
				MemoryStatistics::hostUsedBytes, tags);
		bytes(registry, HOST_CACHED, "Page-locked host memory kept for reuse", device,
				MemoryStatistics::hostCachedBytes, tags);
		bytes(registry, HOST_PEAK, "The most page-locked host memory in use at once since the start", device,
				MemoryStatistics::hostPeakBytes, tags);
		Gauge.builder(WAITING, device, (d) -> d.memoryStatistics().waiting())
			.description("Sessions waiting for the memory budget to admit their bytes")
			.baseUnit(OffloadMeters.UNIT_SESSIONS)
			.tags(tags)
			.register(registry);
		counter(registry, CACHE_REQUESTS, "Buffer acquisitions served from the cache", "requests", device,
				MemoryStatistics::cacheHits, tags.and("result", "hit"));
		counter(registry, CACHE_REQUESTS, "Buffer acquisitions that needed a driver allocation", "requests", device,
				MemoryStatistics::cacheMisses, tags.and("result", "miss"));
		counter(registry, CACHE_EVICTIONS, "Cached blocks given back to the driver", "evictions", device,
				MemoryStatistics::cacheEvictions, tags);
		counter(registry, DRIVER_ALLOCATIONS, "Driver allocations of device memory", "allocations", device,
				MemoryStatistics::deviceAllocations, tags.and("kind", "device"));
		counter(registry, DRIVER_ALLOCATIONS, "Driver allocations of page-locked host memory", "allocations", device,
				MemoryStatistics::hostAllocations, tags.and("kind", "host"));
		counter(registry, DRIVER_FREES, "Driver frees of device memory", "frees", device, MemoryStatistics::deviceFrees,
				tags.and("kind", "device"));
		counter(registry, DRIVER_FREES, "Driver frees of page-locked host memory", "frees", device,
				MemoryStatistics::hostFrees, tags.and("kind", "host"));
		counter(registry, OOM_RETRIES, "Allocations the driver refused that were retried after trimming the cache",
				"retries", device, MemoryStatistics::outOfMemoryRetries, tags);
		counter(registry, OOM_FAILURES, "Allocations that failed with DeviceOutOfMemoryException after the retry",
				"failures", device, MemoryStatistics::outOfMemoryFailures, tags);
		counter(registry, WAIT_TIMEOUTS, "Waits for the memory budget that ended in MemoryBudgetExceededException",
				"timeouts", device, MemoryStatistics::waitTimeouts, tags);
	}

	private static double usage(MemoryStatistics statistics) {
		return statistics.isBudgeted() ? (double) statistics.usedBytes() / Math.max(1, statistics.budgetBytes())
				: Double.NaN;
	}

	private static double budget(MemoryStatistics statistics) {
		return statistics.isBudgeted() ? statistics.budgetBytes() : Double.NaN;
	}

	private static void bytes(MeterRegistry registry, String name, String description, Device device,
			ToDoubleFunction<MemoryStatistics> value, Tags tags) {
		Gauge.builder(name, device, (d) -> value.applyAsDouble(d.memoryStatistics()))
			.description(description)
			.baseUnit(BaseUnits.BYTES)
			.tags(tags)
			.register(registry);
	}

	private static void counter(MeterRegistry registry, String name, String description, String unit, Device device,
			ToDoubleFunction<MemoryStatistics> value, Tags tags) {
		FunctionCounter.builder(name, device, (d) -> value.applyAsDouble(d.memoryStatistics()))
			.description(description)
			.baseUnit(unit)
			.tags(tags)
			.register(registry);
	}

}
