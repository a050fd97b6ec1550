package dev.offload.autoconfigure.metrics;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.ObservabilityWebTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for Offload's meters in a Prometheus scrape.
 */
@ObservabilityWebTests
class PrometheusScrapeIntegrationTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void scrapeShouldContainOffloadFamilies() {
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		String scrape = this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(scrape).contains("offload_streams{backend=\"host\",device=\"0\"} ")
			.contains("offload_streams_active_streams{backend=\"host\",device=\"1\"}")
			.contains("offload_streams_idle_streams{")
			.contains("offload_streams_pending_threads{")
			.contains("offload_streams_max_streams{backend=\"host\",device=\"1\"} 3.0")
			.contains("offload_streams_acquire_seconds_count{")
			.contains("offload_streams_timeout_borrows_total{")
			.contains("offload_streams_discarded_streams_total{")
			.contains("offload_sessions_leaked_sessions_total{")
			.contains("offload_healthy_devices{backend=\"host\",device=\"0\"} 1.0")
			.contains("offload_session_seconds_count{")
			.doesNotContain("offload_sessions_seconds");
	}

}
