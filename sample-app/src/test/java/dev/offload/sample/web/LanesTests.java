package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.sample.web.OptionsApiTests.json;
import static dev.offload.sample.web.OptionsApiTests.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Heavy jobs in a bounded lane, light requests beside it: the Monte Carlo slots are the
 * lane's sessions, so a job posted while the lane is full is queued (202 {@code QUEUED})
 * rather than refused, starts once the first one ends, and light requests still get their
 * prices meanwhile.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "offload.stream-pool.lanes.normal.max-sessions=1",
				"offload.stream-pool.lanes.normal.borrow-timeout=50ms" })
@AutoConfigureOffload
class LanesTests {

	static final String HEAVY = "{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,"
			+ "\"paths\":67108864}";

	@LocalServerPort
	int port;

	@Test
	void fullLaneShouldQueueHeavyJobsWhileLightRequestsAreServedAndBothJobsFinish() throws Exception {
		HttpResponse<String> accepted = send(this.port, "POST", "/api/options/monte-carlo", HEAVY);
		assertThat(accepted.statusCode()).isEqualTo(202);
		HttpResponse<String> queued = send(this.port, "POST", "/api/options/monte-carlo", HEAVY);
		assertThat(queued.statusCode()).isEqualTo(202);
		assertThat(queued.body()).contains("\"status\":\"QUEUED\"");
		HttpResponse<String> light = send(this.port, "POST", "/api/options/price",
				"{\"options\":[{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}]}");
		assertThat(light.statusCode()).isEqualTo(200);
		for (HttpResponse<String> job : List.of(accepted, queued)) {
			String location = job.headers().firstValue("Location").orElseThrow();
			await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
				String status = json.readTree(send(this.port, "GET", location, null).body()).get("status").asString();
				assertThat(status).isEqualTo("DONE");
			});
		}
	}

}
