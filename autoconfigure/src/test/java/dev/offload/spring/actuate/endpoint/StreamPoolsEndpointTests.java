package dev.offload.spring.actuate.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.leak.LeakDetector;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.DeviceDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.PoolDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.PriorityDescriptor;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint.StreamPoolsDescriptor;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
		assertThat(first.pool())
			.isEqualTo(new PoolDescriptor(0, 0, 0, 0, null, false, 0, 0, 0, 0, 0, 0, 0, false, "PT0S", 0, 0, Map.of()));
		assertThat(descriptor.devices().get(1).pool().max()).isEqualTo(8);
		assertThat(descriptor.devices().get(1).pool().bounded()).isTrue();
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
