package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.sample.web.OptionsApiTests.json;
import static dev.offload.sample.web.OptionsApiTests.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Monte Carlo job is accepted only once the device's memory budget admitted its
 * buffers: with the budget held (by a buffer of the test's), a job is refused with 503
 * and {@code Retry-After} instead of being accepted and then failing; once the memory is
 * free, it is accepted and finishes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "offload.memory.budget=100KB")
@AutoConfigureOffload
class MonteCarloMemoryTests {

	/** 1M paths: 4,096 device threads, 64 KiB of partial sums. */
	static final String JOB = "{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,"
			+ "\"paths\":1048576}";

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	@Test
	void jobWhenTheMemoryBudgetCannotAdmitItShouldBeRefusedUpFrontNotAcceptedThenFailed() throws Exception {
		HttpResponse<String> refused;
		try (DeviceBuffer held = this.registry.device(0).allocate(90 * 1024)) {
			refused = send(this.port, "POST", "/api/options/monte-carlo", JOB);
		}
		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue(ApiErrors.RETRY_AFTER_SECONDS);
		assertThat(refused.body()).doesNotContain("budget");
		HttpResponse<String> accepted = send(this.port, "POST", "/api/options/monte-carlo", JOB);
		assertThat(accepted.statusCode()).isEqualTo(202);
		String location = accepted.headers().firstValue("Location").orElseThrow();
		await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
			String status = json.readTree(send(this.port, "GET", location, null).body()).get("status").asString();
			assertThat(status).isEqualTo("DONE");
		});
	}

}
