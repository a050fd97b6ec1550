package dev.offload.spring.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.MemoryConfig;
import dev.offload.MemoryStatistics;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadMemoryMetrics}.
 */
class OffloadMemoryMetricsTests {

	private final DeviceRegistry registry = DeviceRegistry
		.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
		.streamPool(new StreamPoolConfig(2, 0, Duration.ofSeconds(30)))
		.build();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void gaugesWhenASessionHoldsABufferShouldShowItOnItsDeviceOnly() {
		new OffloadMemoryMetrics(this.registry).bindTo(this.meters);
		try (OffloadSession session = this.registry.openSession(0)) {
			session.allocate(1 << 20);
			assertThat(gauge(OffloadMemoryMetrics.USED, "0")).isGreaterThanOrEqualTo(1 << 20);
			assertThat(gauge(OffloadMemoryMetrics.USED, "1")).isZero();
			assertThat(gauge(OffloadMemoryMetrics.PEAK, "0")).isGreaterThanOrEqualTo(1 << 20);
		}
		MemoryStatistics statistics = this.registry.device(0).memoryStatistics();
		assertThat(gauge(OffloadMemoryMetrics.USED, "0")).isEqualTo(statistics.usedBytes());
		assertThat(gauge(OffloadMemoryMetrics.CACHED, "0")).isEqualTo(statistics.cachedBytes());
		assertThat(gauge(OffloadMemoryMetrics.PEAK, "0")).isGreaterThanOrEqualTo(1 << 20);
		assertThat(gauge(OffloadMemoryMetrics.RESERVED_PEAK, "0")).isEqualTo(statistics.reservedPeakBytes())
			.isGreaterThanOrEqualTo(1 << 20);
	}

	@Test
	void countersWhenABufferIsAllocatedTwiceShouldCountAMissThenAHit() {
		new OffloadMemoryMetrics(this.registry).bindTo(this.meters);
		for (int i = 0; i < 2; i++) {
			try (OffloadSession session = this.registry.openSession(0)) {
				session.allocate(4096);
			}
		}
		MemoryStatistics statistics = this.registry.device(0).memoryStatistics();
		assertThat(statistics.cacheMisses()).isPositive();
		assertThat(statistics.cacheHits()).isPositive();
		assertThat(counter(OffloadMemoryMetrics.CACHE_REQUESTS, "0", "result", "miss"))
			.isEqualTo(statistics.cacheMisses());
		assertThat(counter(OffloadMemoryMetrics.CACHE_REQUESTS, "0", "result", "hit"))
			.isEqualTo(statistics.cacheHits());
		assertThat(counter(OffloadMemoryMetrics.DRIVER_ALLOCATIONS, "0", "kind", "device"))
			.isEqualTo(statistics.deviceAllocations())
			.isPositive();
		assertThat(counter(OffloadMemoryMetrics.DRIVER_ALLOCATIONS, "1", "kind", "device")).isZero();
	}

	@Test
	void budgetWhenAShareOfTheDeviceShouldBeThatShareInBytes() {
		DeviceRegistry budgeted = DeviceRegistry
			.builder(HostBackend.builder().deviceCount(1).memoryBytes(1L << 30).build())
			.memory(MemoryConfig.ofPercent(50))
			.build();
		try {
			new OffloadMemoryMetrics(budgeted).bindTo(this.meters);
			assertThat(gauge(OffloadMemoryMetrics.BUDGET, "0")).isEqualTo(1L << 29);
			assertThat(gauge(OffloadMemoryMetrics.BUDGET_USAGE, "0")).isZero();
			try (OffloadSession session = budgeted.openSession(0)) {
				session.allocate(1L << 27);
				assertThat(gauge(OffloadMemoryMetrics.BUDGET_USAGE, "0")).isEqualTo(0.25);
			}
		}
		finally {
			budgeted.close();
		}
	}

	@Test
	void budgetWhenNoneIsEnforcedShouldBeNaN() {
		DeviceRegistry unlimited = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).build())
			.memory(MemoryConfig.UNLIMITED)
			.build();
		try {
			new OffloadMemoryMetrics(unlimited).bindTo(this.meters);
			assertThat(gauge(OffloadMemoryMetrics.BUDGET, "0")).isNaN();
			assertThat(gauge(OffloadMemoryMetrics.BUDGET_USAGE, "0")).isNaN();
		}
		finally {
			unlimited.close();
		}
	}

	@Test
	void bindToShouldRegisterEveryMeterWithADescriptionAndAUnit() {
		new OffloadMemoryMetrics(this.registry).bindTo(this.meters);
		assertThat(this.meters.getMeters()).isNotEmpty().allSatisfy((meter) -> {
			assertThat(meter.getId().getName()).startsWith("offload.memory.");
			assertThat(meter.getId().getDescription()).isNotBlank();
			assertThat(meter.getId().getBaseUnit()).isNotBlank();
			assertThat(meter.getId().getTag("device")).isNotNull();
		});
	}

	private double gauge(String name, String device) {
		Gauge gauge = this.meters.find(name).tag("device", device).gauge();
		assertThat(gauge).as(name).isNotNull();
		return gauge.value();
	}

	private double counter(String name, String device, String tag, String value) {
		FunctionCounter counter = this.meters.find(name).tag("device", device).tag(tag, value).functionCounter();
		assertThat(counter).as(name).isNotNull();
		return counter.count();
	}

}
