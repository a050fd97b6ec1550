package dev.offload.spring.actuate.health;

import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;
import dev.offload.spi.BackendSelection;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadHealthIndicator}.
 */
class OffloadHealthIndicatorTests {

	private final FaultInjectingBackend backend = FaultInjectingBackend
		.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(2).build());

	private final DeviceRegistry registry = DeviceRegistry.builder(this.backend).build();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void healthWhenEveryDeviceIsHealthyShouldBeUpWithTheBackend() {
		Health health = new OffloadHealthIndicator(this.registry, null).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("backend", "host").doesNotContainKey("note");
		assertThat(devices(health)).containsOnlyKeys("0", "1");
		assertThat(device(health, "0")).containsEntry("name", "Host device 0").containsEntry("status", "UP");
	}

	@Test
	void healthWhenOnTheHostEmulationShouldReportEachDeviceAsExclusive() {
		Health health = new OffloadHealthIndicator(this.registry, null).health();
		assertThat(device(health, "0")).containsEntry("sharing", "exclusive");
		assertThat(device(health, "1")).containsEntry("sharing", "exclusive");
	}

	@Test
	void healthWhenASessionHoldsABufferShouldShowTheMemoryInUse() {
		try (OffloadSession session = this.registry.openSession(0)) {
			session.allocate(1 << 20);
			Health health = new OffloadHealthIndicator(this.registry, null).health();
			assertThat(device(health, "0").get("memory")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsKeys("used", "cached", "waiting")
				.hasEntrySatisfying("used", (used) -> assertThat((long) used).isGreaterThanOrEqualTo(1 << 20));
		}
	}

	@Test
	void healthWhenADeviceFailedShouldBeDownNamingTheDeviceAndError() {
		this.backend.failDevice(1, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> {
			try (OffloadSession session = this.registry.openSession(1)) {
				session.streamId();
			}
		});
		Health health = new OffloadHealthIndicator(this.registry, null).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(device(health, "0")).containsEntry("status", "UP").doesNotContainKey("error");
		assertThat(device(health, "1")).containsEntry("status", "DOWN");
		assertThat((String) device(health, "1").get("error")).contains("injected for a test");
	}

	@Test
	void healthWhenFailureIsOnlyInjectedShouldStayUpUntilASessionHitsIt() {
		this.backend.failDevice(0, "not seen yet");
		assertThat(new OffloadHealthIndicator(this.registry, null).health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void healthWhenAutoBackendFellBackToHostShouldAddANote() {
		BackendSelection fallback = new BackendSelection("auto", provider(this.backend.name()), true,
				"no NVIDIA driver here", 2);
		Health health = new OffloadHealthIndicator(this.registry, fallback).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("note", OffloadHealthIndicator.HOST_FALLBACK_NOTE)
			.containsEntry("reason", "no NVIDIA driver here");
	}

	@Test
	void healthWhenRegistryRunsAnotherBackendThanTheSelectionShouldAddNoNote() {
		BackendSelection fallback = new BackendSelection("auto", provider("another"), true, "no NVIDIA driver here", 2);
		Health health = new OffloadHealthIndicator(this.registry, fallback).health();
		assertThat(health.getDetails()).doesNotContainKeys("note", "reason");
	}

	@Test
	void healthWhenCudaWasSelectedShouldAddNoNote() {
		BackendSelection cuda = new BackendSelection("auto", provider(this.backend.name()), false, "2 CUDA device(s)",
				2);
		Health health = new OffloadHealthIndicator(this.registry, cuda).health();
		assertThat(health.getDetails()).doesNotContainKeys("note", "reason");
	}

	private static BackendProvider provider(String name) {
		return new BackendProvider() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public BackendAvailability probe() {
				return BackendAvailability.available(2, name);
			}

			@Override
			public Backend create() {
				throw new UnsupportedOperationException("not created by these tests");
			}

		};
	}

	@Test
	void healthWhenRegistryClosedShouldBeOutOfService() {
		this.registry.close();
		assertThat(new OffloadHealthIndicator(this.registry, null).health().getStatus())
			.isEqualTo(Status.OUT_OF_SERVICE);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> devices(Health health) {
		return (Map<String, Object>) health.getDetails().get("devices");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> device(Health health, String id) {
		return (Map<String, Object>) devices(health).get(id);
	}

}
