package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.template.OffloadTemplate;
import dev.offload.test.autoconfigure.AutoConfigureOffload;
import dev.offload.test.kernel.Gate;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * A full bounded pool answers 503 with Retry-After after the borrow timeout, never a
 * hang; the pool's only stream is held by a {@link Gate} from Offload's test kit.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "offload.stream-pool.initial-size=1", "offload.stream-pool.max-size=1",
				"offload.stream-pool.lanes.normal.max-sessions=1", "offload.stream-pool.borrow-timeout=200ms" })
@AutoConfigureOffload
class FullPoolTests {

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	@Autowired
	OffloadTemplate offload;

	@Test
	void requestsWhenPoolIsFullShouldBe503WithRetryAfter() throws Exception {
		HttpResponse<String> response;
		HttpResponse<String> heavy;
		CompletableFuture<Void> held;
		try (Gate gate = Gate.create()) {
			held = this.offload.submit((session) -> {
				gate.launch(session);
				return null;
			});
			assertThat(gate.awaitStarted(Duration.ofSeconds(30))).isTrue();
			assertThat(this.registry.device(0).streamPool()).hasInUse(1).hasIdle(0);
			response = OptionsApiTests.send(this.port, "POST", "/api/options/price",
					"{\"options\":[" + OptionsApiTests.option(100) + "]}");
			heavy = OptionsApiTests.send(this.port, "POST", "/api/options/monte-carlo",
					"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.02,\"volatility\":0.3,\"paths\":4096}");
			assertThat(this.registry.device(0).streamPool()).hasTimeouts(2);
		}
		assertThat(held).completesWithin(Duration.ofSeconds(30));
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(heavy.statusCode()).isEqualTo(503);
		assertThat(heavy.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.body()).contains("retry after 1 s").doesNotContain("inUse").doesNotContain("lane");
		HttpResponse<String> after = OptionsApiTests.send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		assertThat(after.statusCode()).isEqualTo(200);
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
