package dev.offload.autoconfigure.health;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.offload.autoconfigure.ObservabilityWebTests;
import dev.offload.spring.actuate.health.OffloadHealthIndicator;

/**
 * Integration tests for {@link OffloadHealthIndicator} over HTTP.
 */
@ObservabilityWebTests
class OffloadHealthWebIntegrationTests {

	@Autowired
	private RestTestClient client;

	// The application's own registry chose the host backend: no fallback to note.
	@Test
	void healthWhenDevicesAreHealthyShouldBeUpWithDetails() {
		this.client.get()
			.uri("/actuator/health/offload")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.details.backend")
			.isEqualTo("host")
			.jsonPath("$.details.note")
			.doesNotExist()
			.jsonPath("$.details.devices['0'].name")
			.isEqualTo("Host device 0")
			.jsonPath("$.details.devices['0'].status")
			.isEqualTo("UP")
			.jsonPath("$.details.devices['1'].status")
			.isEqualTo("UP");
	}

}
