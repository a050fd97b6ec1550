package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.TenantPolicy.TenantShare;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A tenant's waits for the memory budget and the requests refused to it, counted in its
 * row of the pool's tenant statistics (and from there in its meters).
 */
class TenantMemoryStatisticsTests {

	private static final long KIB = 1024;

	private static final long MIB = 1024 * KIB;

	private DeviceRegistry registry;

	private Device open(TenantPolicy tenants) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).memoryBytes(64 * MIB).build())
			.memory(MemoryConfig.ofBytes(MIB))
			.tenants(tenants)
			.build();
		return this.registry.device(0);
	}

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close(Duration.ofSeconds(5));
		}
	}

	@Test
	void aTenantPastItsMemoryLimitShouldCountARefusalInItsRow() {
		Device device = open(TenantPolicy.DEFAULTS.withTenant("capped", new TenantShare(1, 0, 256 * KIB)));
		try (OffloadSession session = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("capped"))) {
			assertThatExceptionOfType(MemoryBudgetExceededException.class).isThrownBy(() -> session.allocate(512 * KIB))
				.satisfies((ex) -> assertThat(ex.getTenant()).isEqualTo("capped"));
		}
		TenantStatistics capped = row(device, "capped");
		assertThat(capped.memoryRefusals()).isEqualTo(1);
		assertThat(capped.memoryWaits()).isZero();
		assertThat(device.streamPool().tenantStatistics()).extracting(TenantStatistics::tenant)
			.containsExactly("capped");
	}

	@Test
	void aTenantThatWaitedForTheBudgetShouldCountTheWaitInItsRow() throws Exception {
		Device device = open(TenantPolicy.DEFAULTS);
		OffloadSession holder = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("holder"));
		holder.allocate(768 * KIB);
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			try (OffloadSession late = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("late"))) {
				late.allocate(512 * KIB);
				return late.reservedMemory();
			}
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> device.memoryStatistics().waiting() == 1);
		holder.close();
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo(512 * KIB);
		TenantStatistics late = row(device, "late");
		assertThat(late.memoryWaits()).isEqualTo(1);
		assertThat(late.memoryWaitNanos()).isPositive();
		assertThat(late.memoryRefusals()).isZero();
		assertThat(row(device, "holder").memoryWaits()).isZero();
	}

	@Test
	void tenantsPastTheTrackedBoundShouldCountTheirRefusalsAsOther() {
		Device device = open(TenantPolicy.DEFAULTS.withMaxTrackedTenants(1));
		try (OffloadSession first = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("first"))) {
			first.allocate(KIB);
		}
		for (String tenant : new String[] { "second", "third" }) {
			try (OffloadSession session = this.registry
				.openSession(SessionOptions.DEFAULTS.withTenant(tenant).withTimeout(Duration.ofMillis(1)))) {
				assertThatExceptionOfType(MemoryBudgetExceededException.class)
					.isThrownBy(() -> session.allocate(2 * MIB));
			}
		}
		assertThat(device.streamPool().tenantStatistics()).extracting(TenantStatistics::tenant)
			.containsExactly("first", TenantPolicy.OTHER_TENANTS);
		assertThat(row(device, TenantPolicy.OTHER_TENANTS).memoryRefusals()).isEqualTo(2);
	}

	private static TenantStatistics row(Device device, String tenant) {
		return device.streamPool()
			.tenantStatistics()
			.stream()
			.filter((row) -> row.tenant().equals(tenant))
			.findFirst()
			.orElseThrow(
					() -> new AssertionError("no row for " + tenant + " in " + device.streamPool().tenantStatistics()));
	}

}
