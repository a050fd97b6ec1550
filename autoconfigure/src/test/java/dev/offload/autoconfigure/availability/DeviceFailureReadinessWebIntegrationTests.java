package dev.offload.autoconfigure.availability;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Over HTTP: a device that fails with a sticky error takes the application out of
 * readiness, and liveness stays up.
 */
@ReadinessProbeWebTest
@Import(DeviceFailureReadinessWebIntegrationTests.FaultsConfiguration.class)
class DeviceFailureReadinessWebIntegrationTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Autowired
	private FaultInjectingBackend backend;

	@Test
	void readinessWhenADeviceFailsShouldGoOutOfServiceWhileLivenessStaysUp() {
		expectProbe("readiness", 200, "UP");
		this.backend.failDevice(1, "injected for a readiness test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> {
			try (OffloadSession session = this.registry.openSession(1)) {
				session.streamId();
			}
		});
		expectProbe("readiness", 503, "OUT_OF_SERVICE");
		expectProbe("liveness", 200, "UP");
		// The healthy device goes on working: the instance is out of the load balancer,
		// not dead.
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		assertThat(this.registry.device(0).isHealthy()).isTrue();
	}

	private void expectProbe(String probe, int httpStatus, String status) {
		this.client.get()
			.uri("/actuator/health/" + probe)
			.exchange()
			.expectStatus()
			.isEqualTo(httpStatus)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(status);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class FaultsConfiguration {

		// The application's backend, the two host devices of the test's properties,
		// wrapped to fail a device at will.
		@Bean
		FaultInjectingBackend faultInjectingBackend() {
			return FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).build());
		}

	}

}
