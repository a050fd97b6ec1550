package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * A scenario risk request's deadline counts from its arrival
 * ({@code sample.risk.timeout}): one that passed while the request was read and checked
 * is a 503 with {@code Retry-After}, before any session is opened; price requests keep
 * their own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.risk.timeout=1ns")
@AutoConfigureOffload
class ScenarioRiskDeadlineTests {

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	@Test
	void aDeadlinePassedBeforeTheProductShouldBeA503WithRetryAfter() throws Exception {
		HttpResponse<String> response = OptionsApiTests.send(this.port, "POST", "/api/portfolio/scenario-risk",
				"{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1]}],\"scenarios\":[[1],[2]]}");
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.body()).contains("\"title\":\"Service busy\"");
		assertThat(this.registry).hasNothingLentAnywhere();
		assertThat(OptionsApiTests
			.send(this.port, "POST", "/api/options/price", "{\"options\":[" + OptionsApiTests.option(100) + "]}")
			.statusCode()).isEqualTo(200);
	}

}
