package dev.offload.spring.actuate.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.leak.LeakDetector;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.DeviceDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.MemoryDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.PoolDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.PriorityDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.SharingDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.StreamPoolsDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.TenantDescriptor;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadTemplate;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link StreamPoolsEndpoint}.
 */
class StreamPoolsEndpointTests {

	private final FaultInjectingBackend backend = FaultInjectingBackend
		.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(2).build());

	private final DeviceRegistry registry = DeviceRegistry.builder(this.backend)
		.streamPool(new StreamPoolConfig(2, 0, Duration.ofSeconds(5)))
		.streamPool(1, new StreamPoolConfig(2, 8, Duration.ofSeconds(5)))
		.build();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void streamPoolsWhenTemplateHasBatchersShouldDescribeThem() throws Exception {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		try (Batcher<Integer, Integer> batcher = template.batcher("echo",
				(items) -> CompletableFuture.completedFuture(items),
				BatchPolicy.DEFAULTS.withMaxBatchSize(2).withMaxDelay(Duration.ofHours(1)))) {
			CompletableFuture<Integer> first = batcher.submit(1);
			batcher.submit(2).get(10, TimeUnit.SECONDS);
			first.get(10, TimeUnit.SECONDS);
			StreamPoolsDescriptor descriptor = new StreamPoolsEndpoint(this.registry, null, null, template)
				.streamPools();
			assertThat(descriptor.batchers()).singleElement().satisfies((described) -> {
				assertThat(described.name()).isEqualTo("echo");
				assertThat(described.maxBatchSize()).isEqualTo(2);
				assertThat(described.maxDelay()).isEqualTo("PT1H");
				assertThat(described.batches()).isOne();
				assertThat(described.items()).isEqualTo(2);
				assertThat(described.meanBatchSize()).isEqualTo(2);
				assertThat(described.queued()).isZero();
			});
		}
		assertThat(new StreamPoolsEndpoint(this.registry, null).streamPools().batchers()).isEmpty();
	}

	@Test
	void streamPoolsWhenNothingRanShouldDescribeEveryDevice() {
		StreamPoolsDescriptor descriptor = new StreamPoolsEndpoint(this.registry, null).streamPools();
		assertThat(descriptor.backend()).isEqualTo("host");
		assertThat(descriptor.closed()).isFalse();
		assertThat(descriptor.leakDetectionThreshold()).isNull();
		assertThat(descriptor.devices()).extracting(DeviceDescriptor::id).containsExactly(0, 1);
		DeviceDescriptor first = descriptor.devices().get(0);
		assertThat(first.name()).isEqualTo("Host device 0");
		assertThat(first.backend()).isEqualTo("host");
		assertThat(first.healthy()).isTrue();
		assertThat(first.error()).isNull();
		assertThat(first.pool()).isEqualTo(new PoolDescriptor(0, 0, 0, 0, null, false, 0, 0, 0, 0, 0, 0, 0, false,
				"PT0S", 0, 0, Map.of(), List.of()));
		assertThat(descriptor.devices().get(1).pool().max()).isEqualTo(8);
		assertThat(descriptor.devices().get(1).pool().bounded()).isTrue();
	}

	@Test
	void poolShouldListEachTenantsStreamsAndBorrows() {
		try (OffloadSession acme = this.registry.openSession(SessionOptions.DEFAULTS.withDevice(0).withTenant("acme"));
				OffloadSession plain = this.registry.openSession(0)) {
			acme.streamId();
			plain.streamId();
			assertThat(new StreamPoolsEndpoint(this.registry, null).device(0).pool().tenants())
				.extracting(TenantDescriptor::tenant, TenantDescriptor::inUse, TenantDescriptor::waiting,
						TenantDescriptor::borrows)
				.containsExactlyInAnyOrder(tuple("acme", 1, 0, 1L), tuple("default", 1, 0, 1L));
		}
		assertThat(new StreamPoolsEndpoint(this.registry, null).device(0).pool().tenants())
			.extracting(TenantDescriptor::inUse)
			.containsOnly(0);
	}

	@Test
	void deviceWhenOnTheHostEmulationShouldBeExclusiveWithItsWholeMemory() {
		DeviceDescriptor device = new StreamPoolsEndpoint(this.registry, null).device(0);
		assertThat(device.sharing()).isEqualTo(new SharingDescriptor("exclusive", null, null, null,
				this.registry.device(0).info().totalMemoryBytes(), List.of()));
	}

	@Test
	void deviceWhenAnMpsClientShouldShowTheModeAndTheMemoryItMayUse() {
		GpuSharing mps = new GpuSharing(null, new GpuSharing.Mps(true, 50, 1L << 30), null,
				List.of("CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 1"));
		DeviceInfo info = new DeviceInfo(0, "NVIDIA H200", 9, 0, 150L << 30, 132, 0, -5, mps);
		SharingDescriptor sharing = SharingDescriptor.of(info);
		assertThat(sharing.mode()).isEqualTo("mps");
		assertThat(sharing.mps().activeThreadPercentage()).isEqualTo(50);
		assertThat(sharing.usableMemoryBytes()).isEqualTo(1L << 30);
		assertThat(sharing.evidence()).containsExactly("CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 1");
	}

	@Test
	void deviceWhenASessionHoldsABufferShouldShowTheMemoryItTakes() {
		StreamPoolsEndpoint endpoint = new StreamPoolsEndpoint(this.registry, null);
		try (OffloadSession session = this.registry.openSession(1)) {
			session.allocate(1 << 20);
			MemoryDescriptor memory = endpoint.device(1).memory();
			assertThat(memory.used()).isGreaterThanOrEqualTo(1 << 20);
			assertThat(memory.peak()).isGreaterThanOrEqualTo(1 << 20);
			assertThat(memory.cacheMisses()).isPositive();
			assertThat(memory.driverAllocations()).containsOnlyKeys("device", "host");
			assertThat(endpoint.device(0).memory().used()).isZero();
		}
		MemoryDescriptor after = endpoint.device(1).memory();
		assertThat(after.used()).isEqualTo(this.registry.device(1).memoryStatistics().usedBytes());
		assertThat(after.peak()).isGreaterThanOrEqualTo(1 << 20);
		if (after.budget() == null) {
			assertThat(after.budgetUse()).isNull();
		}
		else {
			assertThat(after.budgetUse()).isEqualTo((double) after.used() / after.budget());
		}
	}

	@Test
	void deviceWhenSessionsOpenShouldCountThemPerPriority() {
		StreamPoolsEndpoint endpoint = new StreamPoolsEndpoint(this.registry, null);
		try (OffloadSession normal = this.registry.device(0).openSession();
				OffloadSession high = this.registry.device(0).openSession(StreamPriority.HIGH)) {
			normal.streamId();
			high.streamId();
			DeviceDescriptor device = endpoint.device(0);
			assertThat(device.activeSessions()).isEqualTo(2);
			PoolDescriptor pool = device.pool();
			assertThat(pool.size()).isEqualTo(4);
			assertThat(pool.inUse()).isEqualTo(2);
			assertThat(pool.idle()).isEqualTo(2);
			assertThat(pool.peakInUse()).isEqualTo(2);
			assertThat(pool.borrows()).isEqualTo(2);
			assertThat(pool.created()).isEqualTo(4);
			assertThat(pool.byPriority()).containsExactly(Map.entry("HIGH", new PriorityDescriptor(2, 1, 1)),
					Map.entry("NORMAL", new PriorityDescriptor(2, 1, 1)));
		}
		DeviceDescriptor after = endpoint.device(0);
		assertThat(after.activeSessions()).isZero();
		assertThat(after.pool().inUse()).isZero();
		assertThat(after.pool().idle()).isEqualTo(4);
		assertThat(after.pool().peakInUse()).isEqualTo(2);
	}

	@Test
	void deviceWhenABorrowerWaitsShouldShowSaturationAndTheOldestWait() {
		StreamPoolsEndpoint endpoint = new StreamPoolsEndpoint(this.registry, null);
		List<OffloadSession> holders = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			OffloadSession session = this.registry.openSession(1);
			session.streamId();
			holders.add(session);
		}
		CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
			try (OffloadSession session = this.registry.openSession(1)) {
				return session.streamId();
			}
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> endpoint.device(1).pool().saturated());
		PoolDescriptor pool = endpoint.device(1).pool();
		assertThat(pool.waiting()).isEqualTo(1);
		assertThat(Duration.parse(pool.oldestWait())).isPositive();
		holders.forEach(OffloadSession::close);
		assertThat(waiter.join()).isNotNegative();
		assertThat(endpoint.device(1).pool().saturated()).isFalse();
	}

	@Test
	void deviceWhenUnknownShouldReturnNull() {
		assertThat(new StreamPoolsEndpoint(this.registry, null).device(7)).isNull();
	}

	@Test
	void deviceWhenFailedShouldShowTheStickyError() {
		this.backend.failDevice(1, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> {
			try (OffloadSession session = this.registry.openSession(1)) {
				session.streamId();
			}
		});
		DeviceDescriptor device = new StreamPoolsEndpoint(this.registry, null).device(1);
		assertThat(device.healthy()).isFalse();
		assertThat(device.error()).contains("injected for a test");
	}

	@Test
	void streamPoolsWhenLeakDetectionIsOnShouldShowTheThresholdAndCounts() {
		try (LeakDetector detector = new LeakDetector(Duration.ofSeconds(30))) {
			StreamPoolsDescriptor descriptor = new StreamPoolsEndpoint(this.registry, detector).streamPools();
			assertThat(descriptor.leakDetectionThreshold()).isEqualTo("PT30S");
			assertThat(descriptor.devices()).extracting(DeviceDescriptor::leakedSessions).containsExactly(0L, 0L);
		}
	}

	@Test
	void streamPoolsWhenRegistryClosedShouldSayClosed() {
		this.registry.close();
		assertThat(new StreamPoolsEndpoint(this.registry, null).streamPools().closed()).isTrue();
	}

}
