package dev.offload.spring.metrics;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;
import dev.offload.TenantPolicy;
import dev.offload.TenantPolicy.TenantShare;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.BatchListener.CompletedBatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadTenantMetrics}: each tenant's sessions closed and open, tagged
 * {@code tenant}; the tags bounded by the policy's tracked tenants, the named ones first,
 * the rest counted as {@code other}.
 */
class OffloadTenantMetricsTests {

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private DeviceRegistry registry;

	private OffloadTenantMetrics metrics;

	@AfterEach
	void close() {
		this.registry.close();
	}

	private void start(TenantPolicy policy) {
		this.metrics = new OffloadTenantMetrics(() -> this.registry.tenantPolicy());
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).workersPerDevice(2).build())
			.listener(this.metrics)
			.tenants(policy)
			.build();
		this.metrics.bindTo(this.meters);
	}

	private OffloadSession open(String tenant) {
		return this.registry.openSession(SessionOptions.DEFAULTS.withTenant(tenant));
	}

	@Test
	void sessionsShouldBeCountedPerTenantOpenAndClosed() {
		start(TenantPolicy.DEFAULTS);
		try (OffloadSession first = open("acme"); OffloadSession second = open("acme")) {
			assertThat(this.meters.get("offload.tenant.sessions.active")
				.tags("tenant", "acme", "device", "0")
				.gauge()
				.value()).isEqualTo(2);
		}
		try (OffloadSession session = this.registry.openSession()) {
			session.streamId();
		}
		assertThat(this.meters.get("offload.tenant.sessions.active").tag("tenant", "acme").gauge().value()).isZero();
		Timer acme = this.meters.get("offload.tenant.sessions").tags("tenant", "acme", "outcome", "success").timer();
		assertThat(acme.count()).isEqualTo(2);
		assertThat(acme.getId().getDescription()).isNotBlank();
		assertThat(
				this.meters.get("offload.tenant.sessions").tag("tenant", TenantPolicy.DEFAULT_TENANT).timer().count())
			.isEqualTo(1);
	}

	@Test
	void streamMetersShouldReadThePoolsTenantStatistics() {
		start(TenantPolicy.DEFAULTS);
		try (OffloadSession first = open("acme")) {
			first.streamId();
		}
		try (OffloadSession second = open("acme")) {
			second.streamId();
			assertThat(this.meters.get("offload.tenant.streams.active").tag("tenant", "acme").gauge().value())
				.isEqualTo(1);
			assertThat(this.meters.get("offload.tenant.streams.pending").tag("tenant", "acme").gauge().value())
				.isZero();
		}
		assertThat(this.meters.get("offload.tenant.streams.active").tag("tenant", "acme").gauge().value()).isZero();
		assertThat(this.meters.get("offload.tenant.streams.acquire").tag("tenant", "acme").functionTimer().count())
			.isEqualTo(2);
	}

	@Test
	void memoryMetersShouldCountATenantsRefusals() {
		start(TenantPolicy.DEFAULTS.withTenant("capped", new TenantShare(1, 0, 1024)));
		try (OffloadSession session = open("capped")) {
			assertThatExceptionOfType(MemoryBudgetExceededException.class)
				.isThrownBy(() -> session.allocate(1024 * 1024));
		}
		assertThat(this.meters.get("offload.tenant.memory.refused").tag("tenant", "capped").functionCounter().count())
			.isEqualTo(1);
		assertThat(this.meters.get("offload.tenant.memory.waits").tag("tenant", "capped").functionTimer().count())
			.isZero();
	}

	@Test
	void batchedItemsShouldBeTimedPerTenant() {
		start(TenantPolicy.DEFAULTS);
		this.metrics.batchCompleted(new CompletedBatch("scale", 0, 3, new long[] { 1_000_000, 2_000_000, 5_000_000 },
				new String[] { "acme", "acme", TenantPolicy.DEFAULT_TENANT }, null));
		Timer acme = this.meters.get("offload.tenant.batch.queue.delay")
			.tags("kernel", "scale", "tenant", "acme")
			.timer();
		assertThat(acme.count()).isEqualTo(2);
		assertThat(acme.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3.0);
		assertThat(this.meters.get("offload.tenant.batch.queue.delay")
			.tag("tenant", TenantPolicy.DEFAULT_TENANT)
			.timer()
			.max(TimeUnit.MILLISECONDS)).isEqualTo(5.0);
	}

	@Test
	void tenantsPastTheTrackedBoundShouldBeCountedAsOther() {
		start(new TenantPolicy(1, java.util.Map.of("gold", TenantShare.ofWeight(4)), 3));
		for (String tenant : new String[] { "t1", "t2", "t3", "t4", "gold" }) {
			try (OffloadSession session = open(tenant)) {
				session.streamId();
			}
		}
		// gold is named, so t1 and t2 fill the bound of 3; t3 and t4 are other.
		assertThat(this.meters.find("offload.tenant.sessions").timers())
			.extracting((timer) -> timer.getId().getTag("tenant"))
			.containsExactlyInAnyOrder("gold", "t1", "t2", TenantPolicy.OTHER_TENANTS);
		assertThat(this.meters.get("offload.tenant.sessions").tag("tenant", TenantPolicy.OTHER_TENANTS).timer().count())
			.isEqualTo(2);
	}

}
