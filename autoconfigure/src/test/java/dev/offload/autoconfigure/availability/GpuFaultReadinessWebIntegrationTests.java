package dev.offload.autoconfigure.availability;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Over HTTP: an Xid the GPU reports through NVML (injected here) shows in the health
 * details with its number, time and meaning; a lesser one degrades its device and keeps
 * the application ready, a fatal one fails its device and takes the application out of
 * readiness, and each is counted and logged once.
 */
@ReadinessProbeWebTest
@TestPropertySource(properties = { "management.endpoint.health.show-details=always",
		"management.endpoint.health.show-components=always" })
@Import(GpuFaultReadinessWebIntegrationTests.FaultsConfiguration.class)
@ExtendWith(OutputCaptureExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GpuFaultReadinessWebIntegrationTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Autowired
	private FaultInjectingBackend backend;

	@Autowired
	private MeterRegistry meters;

	@Test
	@Order(1)
	void lesserXidShouldDegradeItsDeviceAndKeepTheApplicationReady(CapturedOutput output) {
		this.backend.injectXid(0, 92);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.registry.device(0).isDegraded());
		health().expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components.offload.details.gpuFaults")
			.value(String.class, (text) -> assertThat(text).contains("injected"))
			.jsonPath("$.components.offload.details.devices.0.status")
			.isEqualTo("DEGRADED")
			.jsonPath("$.components.offload.details.devices.0.gpuFault.xid")
			.isEqualTo(92)
			.jsonPath("$.components.offload.details.devices.0.gpuFault.meaning")
			.isEqualTo("high single-bit ECC error rate")
			.jsonPath("$.components.offload.details.devices.1.status")
			.isEqualTo("UP");
		this.client.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
		assertThat(this.meters.get("offload.gpu.faults").tags("device", "0", "xid", "92").counter().count())
			.isEqualTo(1);
		assertThat(occurrences(output.toString(), "The GPU reported Xid 92")).isEqualTo(1);
	}

	@Test
	@Order(2)
	void xid79ShouldFailItsDeviceAndTakeTheApplicationOutOfReadiness(CapturedOutput output) {
		this.backend.injectXid(1, 79);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.registry.device(1).isHealthy());
		String time = this.registry.device(1).gpuFault().orElseThrow().time().toString();
		this.client.get()
			.uri("/actuator/health/readiness")
			.exchange()
			.expectStatus()
			.isEqualTo(503)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("OUT_OF_SERVICE");
		this.client.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
		health().expectStatus()
			.isEqualTo(503)
			.expectBody()
			.jsonPath("$.components.offload.status")
			.isEqualTo("DOWN")
			.jsonPath("$.components.offload.details.devices.1.status")
			.isEqualTo("DOWN")
			.jsonPath("$.components.offload.details.devices.1.gpuFault.xid")
			.isEqualTo(79)
			.jsonPath("$.components.offload.details.devices.1.gpuFault.time")
			.isEqualTo(time)
			.jsonPath("$.components.offload.details.devices.1.gpuFault.meaning")
			.isEqualTo("GPU has fallen off the bus")
			.jsonPath("$.components.offload.details.devices.1.gpuFault.fatal")
			.isEqualTo(true)
			.jsonPath("$.components.offload.details.devices.1.error")
			.value(String.class, (text) -> assertThat(text).contains("Xid 79"))
			.jsonPath("$.components.offload.details.devices.0.status")
			.isEqualTo("DEGRADED");
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(() -> this.registry.openSession(1))
			.withMessageContaining("Xid 79");
		assertThat(this.meters.get("offload.gpu.faults").tags("device", "1", "xid", "79").counter().count())
			.isEqualTo(1);
		assertThat(occurrences(output.toString(), "The GPU reported Xid 79")).isEqualTo(1);
		assertThat(output.toString()).doesNotContain("Device 1 (Host device 1) failed and stops lending");
	}

	private RestTestClient.ResponseSpec health() {
		return this.client.get().uri("/actuator/health").exchange();
	}

	private static int occurrences(String text, String part) {
		int count = 0;
		for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
			count++;
		}
		return count;
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class FaultsConfiguration {

		@Bean
		FaultInjectingBackend faultInjectingBackend() {
			return FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).build());
		}

	}

}
