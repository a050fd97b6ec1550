package dev.offload.spring.metrics;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadSessionMetrics}.
 */
class OffloadSessionMetricsTests {

	private final OffloadSessionMetrics metrics = new OffloadSessionMetrics();

	private final DeviceRegistry registry = DeviceRegistry
		.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
		.listener(this.metrics)
		.build();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void timerWhenSessionsRanShouldRecordBorrowsOnly() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		this.metrics.bindTo(meters);
		for (int i = 0; i < 3; i++) {
			try (OffloadSession session = this.registry.openSession(1)) {
				session.streamId();
			}
		}
		try (OffloadSession withoutWork = this.registry.openSession(1)) {
			assertThat(withoutWork.hasStream()).isFalse();
		}
		Timer acquire = meters.get("offload.streams.acquire").tags("device", "1", "backend", "host").timer();
		assertThat(acquire.count()).isEqualTo(3);
		assertThat(acquire.getId().getDescription()).isNotBlank();
		assertThat(meters.find("offload.streams.acquire").tag("device", "0").timer()).isNull();
		// Session durations are the offload.session observation's timer: no second timer
		// of the same meaning.
		assertThat(meters.find("offload.sessions").meters()).isEmpty();
	}

	@Test
	void timersWhenNotBoundYetShouldRecordNothing() {
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		this.metrics.bindTo(meters);
		assertThat(meters.getMeters()).isEmpty();
	}

	@Test
	void timersWhenBoundToTwoRegistriesShouldRecordInBoth() {
		SimpleMeterRegistry first = new SimpleMeterRegistry();
		SimpleMeterRegistry second = new SimpleMeterRegistry();
		this.metrics.bindTo(first);
		this.metrics.bindTo(second);
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		assertThat(first.get("offload.streams.acquire").timer().count()).isOne();
		assertThat(second.get("offload.streams.acquire").timer().count()).isOne();
	}

}
