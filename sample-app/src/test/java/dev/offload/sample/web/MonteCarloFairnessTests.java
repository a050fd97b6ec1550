package dev.offload.sample.web;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import dev.offload.sample.pricing.MonteCarloRequest;
import dev.offload.sample.pricing.MonteCarloResult;
import dev.offload.sample.pricing.MonteCarloService;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;

/**
 * Fair shares of the four Monte Carlo slots over HTTP, clients told apart by
 * {@code X-Client-Id}: a greedy client holding all four does not get a fifth nor, once
 * another client was refused, the slots its jobs free; the client that retried gets them.
 * The simulations are futures the test completes, so no timing is involved.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.jobs.client-id-header=X-Client-Id")
@AutoConfigureOffload
class MonteCarloFairnessTests {

	@LocalServerPort
	int port;

	@MockitoBean
	MonteCarloService monteCarlo;

	private final List<CompletableFuture<MonteCarloResult>> simulations = new ArrayList<>();

	private HttpResponse<String> post(String client) throws Exception {
		return OptionsApiTests.http
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/api/options/monte-carlo"))
				.header("Content-Type", "application/json")
				.header("X-Client-Id", client)
				.POST(HttpRequest.BodyPublishers.ofString(
						"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,\"paths\":4096}"))
				.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void clientHonouringRetryAfterShouldGetTheSlotsTheGreedyClientsJobsFree() throws Exception {
		given(this.monteCarlo.simulate(any(MonteCarloRequest.class))).willAnswer((invocation) -> {
			CompletableFuture<MonteCarloResult> simulation = new CompletableFuture<>();
			this.simulations.add(simulation);
			return simulation;
		});
		for (int i = 0; i < 4; i++) {
			assertThat(post("greedy").statusCode()).isEqualTo(202);
		}
		assertThat(post("greedy").statusCode()).isEqualTo(503);
		HttpResponse<String> refused = post("polite");
		assertThat(refused.statusCode()).isEqualTo(503);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue(ApiErrors.RETRY_AFTER_SECONDS);
		MonteCarloResult price = new MonteCarloResult(10, 0.01, 4096, 10, 0);
		this.simulations.get(0).complete(price);
		assertThat(post("greedy").statusCode()).isEqualTo(503);
		assertThat(post("polite").statusCode()).isEqualTo(202);
		this.simulations.get(1).complete(price);
		assertThat(post("greedy").statusCode()).isEqualTo(503);
		assertThat(post("polite").statusCode()).isEqualTo(202);
		this.simulations.forEach((simulation) -> simulation.complete(price));
		assertThat(post("greedy").statusCode()).isEqualTo(202);
	}

}
