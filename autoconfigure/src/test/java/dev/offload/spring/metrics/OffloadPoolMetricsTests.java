package dev.offload.spring.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.leak.LeakDetector;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link OffloadPoolMetrics}.
 */
class OffloadPoolMetricsTests {

	private final FaultInjectingBackend backend = FaultInjectingBackend
		.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(2).build());

	private final DeviceRegistry registry = DeviceRegistry.builder(this.backend)
		.streamPool(new StreamPoolConfig(2, 0, Duration.ofSeconds(30)))
		.streamPool(1, new StreamPoolConfig(2, 3, Duration.ofMillis(50)))
		.build();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private LeakDetector leakDetector;

	@AfterEach
	void close() {
		this.registry.close();
		if (this.leakDetector != null) {
			this.leakDetector.close();
		}
	}

	@Test
	void gaugesWhenSessionsHoldStreamsShouldShowThePoolPerDevice() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		try (OffloadSession first = this.registry.openSession(0);
				OffloadSession second = this.registry.openSession(0)) {
			first.streamId();
			second.streamId();
			assertThat(gauge("offload.streams", "0")).isEqualTo(2);
			assertThat(gauge("offload.streams.active", "0")).isEqualTo(2);
			assertThat(gauge("offload.streams.idle", "0")).isZero();
			assertThat(gauge("offload.streams.pending", "0")).isZero();
			assertThat(gauge("offload.streams.active", "1")).isZero();
		}
		assertThat(gauge("offload.streams.active", "0")).isZero();
		assertThat(gauge("offload.streams.idle", "0")).isEqualTo(2);
	}

	@Test
	void maxWhenPoolIsUnboundedShouldBeNaN() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		assertThat(gauge("offload.streams.max", "0")).isNaN();
		assertThat(gauge("offload.streams.max", "1")).isEqualTo(3);
	}

	@Test
	void laneGaugesWhenALaneIsConfiguredShouldShowItsUseAgainstItsLimit() {
		DeviceRegistry laned = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(2, 8, Duration.ofSeconds(30)).withLane(StreamPriority.NORMAL, 2, null))
			.build();
		try (laned) {
			new OffloadPoolMetrics(laned, null).bindTo(this.meters);
			assertThat(laneGauge("offload.streams.lane.max", "normal")).isEqualTo(2);
			assertThat(laneGauge("offload.streams.lane.active", "normal")).isZero();
			try (OffloadSession normal = laned.openSession(0);
					OffloadSession high = laned.device(0).openSession(StreamPriority.HIGH)) {
				normal.streamId();
				high.streamId();
				assertThat(laneGauge("offload.streams.lane.active", "normal")).isEqualTo(1);
			}
			assertThat(laneGauge("offload.streams.lane.active", "normal")).isZero();
			assertThat(this.meters.find("offload.streams.lane.active").tag("priority", "high").gauge())
				.as("no lane, no gauge")
				.isNull();
		}
	}

	@Test
	void pendingWhenABorrowerWaitsShouldCountIt() {
		DeviceRegistry bounded = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(1, 1, Duration.ofSeconds(30)))
			.build();
		try (bounded) {
			new OffloadPoolMetrics(bounded, null).bindTo(this.meters);
			OffloadSession holder = bounded.openSession(0);
			holder.streamId();
			OffloadSession waiter = bounded.openSession(0);
			CompletableFuture<Integer> borrow = CompletableFuture.supplyAsync(waiter::streamId);
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("offload.streams.pending", "0") == 1);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.meters.get("offload.streams.oldest.wait")
					.timeGauge()
					.value(TimeUnit.NANOSECONDS) > 0);
			holder.close();
			assertThat(borrow).succeedsWithin(Duration.ofSeconds(10));
			waiter.close();
			assertThat(gauge("offload.streams.pending", "0")).isZero();
		}
	}

	@Test
	void sessionTimeoutsWhenADeadlinePassesShouldBeCountedAndPendingCompletionsShown() {
		DeviceRegistry bounded = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(1, 1, Duration.ofSeconds(30)))
			.build();
		try (bounded) {
			new OffloadPoolMetrics(bounded, null).bindTo(this.meters);
			try (OffloadSession holder = bounded.openSession(0)) {
				holder.streamId();
				OffloadSession late = bounded.openSession(SessionOptions.DEFAULTS.withTimeout(Duration.ofMillis(50)));
				assertThatExceptionOfType(SessionTimeoutException.class).isThrownBy(late::streamId);
				late.close();
				assertThat(counter("offload.sessions.timeouts", "0")).isOne();
				assertThat(gauge("offload.sessions.pending", "0")).isZero();
			}
		}
	}

	@Test
	void timeoutCounterWhenABorrowGivesUpShouldCountIt() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		try (OffloadSession a = this.registry.openSession(1);
				OffloadSession b = this.registry.openSession(1);
				OffloadSession c = this.registry.openSession(1);
				OffloadSession d = this.registry.openSession(1)) {
			a.streamId();
			b.streamId();
			c.streamId();
			assertThatExceptionOfType(StreamBorrowTimeoutException.class).isThrownBy(d::streamId);
			assertThat(counter("offload.streams.timeout", "1")).isOne();
			assertThat(counter("offload.streams.timeout", "0")).isZero();
		}
	}

	@Test
	void discardedCounterWhenWorkFailsShouldCountTheStream() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		OffloadSession session = this.registry.openSession(0);
		var buffer = session.allocate(16);
		session.streamId();
		this.backend.failDevice(0, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> session.fill(buffer, (byte) 1));
		session.close();
		assertThat(counter("offload.streams.discarded", "0")).isOne();
	}

	@Test
	void healthyWhenADeviceFailsShouldDropToZeroForThatDeviceOnly() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		assertThat(gauge("offload.healthy.devices", "1")).isOne();
		this.backend.failDevice(1, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> {
			try (OffloadSession session = this.registry.openSession(1)) {
				session.streamId();
			}
		});
		assertThat(gauge("offload.healthy.devices", "1")).isZero();
		assertThat(gauge("offload.healthy.devices", "0")).isOne();
	}

	@Test
	void leakedCounterWhenLeakDetectionIsOnShouldCountLeakedSessions() {
		this.leakDetector = new LeakDetector(Duration.ofMillis(50));
		DeviceRegistry watched = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.listener(this.leakDetector)
			.build();
		try (watched) {
			new OffloadPoolMetrics(watched, this.leakDetector).bindTo(this.meters);
			assertThat(counter("offload.sessions.leaked", "0")).isZero();
			OffloadSession session = watched.openSession(0);
			await().atMost(Duration.ofSeconds(10)).until(() -> counter("offload.sessions.leaked", "0") == 1);
			session.close();
		}
	}

	@Test
	void leakedCounterWhenLeakDetectionIsOffShouldNotBeRegistered() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		assertThat(this.meters.find("offload.sessions.leaked").meters()).isEmpty();
	}

	@Test
	void timerShouldBeRegisteredFromTheStart() {
		new OffloadPoolMetrics(this.registry, null).bindTo(this.meters);
		Timer acquire = this.meters.get("offload.streams.acquire").tags("device", "1", "backend", "host").timer();
		assertThat(acquire.count()).isZero();
	}

	@Test
	void everyMeterShouldHaveTagsADescriptionAndABaseUnit() {
		this.leakDetector = new LeakDetector(Duration.ofMinutes(1));
		new OffloadPoolMetrics(this.registry, this.leakDetector).bindTo(this.meters);
		assertThat(this.meters.getMeters()).extracting((meter) -> meter.getId().getName())
			.containsOnly("offload.streams", "offload.streams.active", "offload.streams.idle",
					"offload.streams.pending", "offload.streams.max", "offload.streams.timeout",
					"offload.streams.discarded", "offload.sessions.leaked", "offload.streams.acquire",
					"offload.healthy.devices", "offload.streams.oldest.wait", "offload.sessions.pending",
					"offload.sessions.timeouts");
		assertThat(this.meters.getMeters()).hasSize(2 * 13).allSatisfy((meter) -> {
			Meter.Id id = meter.getId();
			assertThat(id.getDescription()).as(id.getName()).isNotBlank();
			assertThat(id.getBaseUnit()).as(id.getName()).isNotBlank();
			assertThat(id.getTag("backend")).isEqualTo("host");
			assertThat(id.getTag("device")).isIn("0", "1");
		});
	}

	private double laneGauge(String name, String priority) {
		return this.meters.get(name).tags("device", "0", "backend", "host", "priority", priority).gauge().value();
	}

	private double gauge(String name, String device) {
		Gauge gauge = this.meters.get(name).tags("device", device, "backend", "host").gauge();
		return gauge.value();
	}

	private double counter(String name, String device) {
		FunctionCounter counter = this.meters.get(name).tags("device", device, "backend", "host").functionCounter();
		return counter.count();
	}

}
