package dev.offload.spring.actuate.health;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.Status;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadReadinessStateHealthIndicator}.
 */
class OffloadReadinessStateHealthIndicatorTests {

	private final ApplicationAvailabilityBean availability = new ApplicationAvailabilityBean();

	private FaultInjectingBackend backend;

	private DeviceRegistry registry;

	@BeforeEach
	void setUp() {
		this.backend = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(2).build());
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(new StreamPoolConfig(1, 1, Duration.ofSeconds(30)))
			.build();
		publish(ReadinessState.ACCEPTING_TRAFFIC);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
		this.backend.close();
	}

	@Test
	void healthWhenDevicesAreHealthyShouldBeUp() {
		assertThat(indicator(true, true).health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void healthWhenADeviceFailedShouldBeOutOfService() {
		failDevice(1);
		assertThat(indicator(true, false).health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
	}

	@Test
	void healthWhenADeviceFailedAndRuleIsOffShouldBeUp() {
		failDevice(1);
		assertThat(indicator(false, true).health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void healthWhenApplicationRefusesTrafficShouldBeOutOfServiceWhateverTheDevices() {
		publish(ReadinessState.REFUSING_TRAFFIC);
		assertThat(indicator(true, true).health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
	}

	@Test
	void isSaturatedWhenStreamsAreLentButNobodyWaitsShouldBeFalse() {
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
			assertThat(OffloadReadinessStateHealthIndicator.isSaturated(this.registry.device(0).streamPool()))
				.isFalse();
			assertThat(indicator(true, true).health().getStatus()).isEqualTo(Status.UP);
		}
	}

	private OffloadReadinessStateHealthIndicator indicator(boolean onDeviceFailure, boolean onSaturation) {
		return new OffloadReadinessStateHealthIndicator(this.availability, this.registry, onDeviceFailure,
				onSaturation);
	}

	private void publish(ReadinessState state) {
		this.availability.onApplicationEvent(new AvailabilityChangeEvent<>(this, state));
	}

	private void failDevice(int id) {
		this.backend.failDevice(id, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> {
			try (OffloadSession session = this.registry.openSession(id)) {
				session.streamId();
			}
		});
	}

}
