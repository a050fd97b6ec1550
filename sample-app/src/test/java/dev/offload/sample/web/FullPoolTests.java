package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full bounded pool answers 503 with Retry-After after the borrow timeout, never a
 * hang.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "offload.stream-pool.initial-size=1", "offload.stream-pool.max-size=1",
				"offload.stream-pool.lanes.normal.max-sessions=1", "offload.stream-pool.borrow-timeout=200ms" })
class FullPoolTests {

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	@Test
	void requestsWhenPoolIsFullShouldBe503WithRetryAfter() throws Exception {
		HttpResponse<String> response;
		HttpResponse<String> heavy;
		try (OffloadSession holder = this.registry.device(0).openSession()) {
			holder.streamId();
			response = OptionsApiTests.send(this.port, "POST", "/api/options/price",
					"{\"options\":[" + OptionsApiTests.option(100) + "]}");
			heavy = OptionsApiTests.send(this.port, "POST", "/api/options/monte-carlo",
					"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.02,\"volatility\":0.3,\"paths\":4096}");
		}
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(heavy.statusCode()).isEqualTo(503);
		assertThat(heavy.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.body()).contains("retry after 1 s").doesNotContain("inUse").doesNotContain("lane");
		HttpResponse<String> after = OptionsApiTests.send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		assertThat(after.statusCode()).isEqualTo(200);
	}

}
