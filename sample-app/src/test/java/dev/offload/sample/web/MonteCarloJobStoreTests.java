package dev.offload.sample.web;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * One tenant cannot fill the Monte Carlo job store and lock the others out until its
 * results expire: past its places it gets 429 with {@code Retry-After}, while another
 * tenant still gets its jobs accepted. The simulations end at once (futures the test
 * makes), so only the store's places count.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.tenants.header=X-Tenant-Id", "sample.jobs.max-retained=6",
				"sample.jobs.max-retained-per-tenant=2" })
@AutoConfigureOffload
class MonteCarloJobStoreTests {

	@LocalServerPort
	int port;

	@MockitoBean
	MonteCarloService monteCarlo;

	private HttpResponse<String> post(String client) throws Exception {
		return OptionsApiTests.http
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/api/options/monte-carlo"))
				.header("Content-Type", "application/json")
				.header("X-Tenant-Id", client)
				.POST(HttpRequest.BodyPublishers.ofString(
						"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,\"paths\":4096}"))
				.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void tenantPastItsPlacesInTheJobStoreShouldGet429WhileAnotherTenantsJobsAreAccepted() throws Exception {
		given(this.monteCarlo.simulate(any(MonteCarloRequest.class)))
			.willAnswer((invocation) -> CompletableFuture.completedFuture(new MonteCarloResult(10, 0.01, 4096, 10, 0)));
		for (int i = 0; i < 2; i++) {
			assertThat(post("greedy").statusCode()).isEqualTo(202);
		}
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> refused = post("greedy");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			// Its oldest result expires in the retention (10 minutes), not in a second.
			assertThat(refused.headers().firstValue("Retry-After")).get()
				.satisfies((seconds) -> assertThat(Long.parseLong(seconds)).isGreaterThan(60));
		}
		assertThat(post("polite").statusCode()).isEqualTo(202);
		assertThat(post("polite").statusCode()).isEqualTo(202);
	}

}
