package dev.offload.sample.web;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;

/**
 * Four tenants flooding the four Monte Carlo slots over HTTP (told apart by
 * {@code X-Tenant-Id}, as a gateway sets it) and one polite tenant: the flooders fill
 * their shares of the queue and of the job store and get 429, the polite tenant's jobs
 * are still accepted, and each slot freed goes to the next tenant in turn, so the polite
 * tenant gets one of every five. The simulations are futures the test completes, so no
 * timing is involved; Awaitility waits for the dispatcher thread to start the next job.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.tenants.header=X-Tenant-Id", "sample.jobs.max-retained=64",
				"sample.jobs.max-retained-per-tenant=10", "sample.jobs.max-queued-per-tenant=8" })
@AutoConfigureOffload
class MonteCarloFairnessTests {

	private static final int POLITE_PATHS = 8192;

	private static final MonteCarloResult PRICE = new MonteCarloResult(10, 0.01, 4096, 10, 0);

	@LocalServerPort
	int port;

	@MockitoBean
	MonteCarloService monteCarlo;

	/**
	 * The simulations started, in order; the polite tenant's are the ones of 8,192 paths.
	 */
	private final List<CompletableFuture<MonteCarloResult>> simulations = Collections
		.synchronizedList(new ArrayList<>());

	private final List<Boolean> politeStarts = Collections.synchronizedList(new ArrayList<>());

	private HttpResponse<String> post(String tenant, int paths) throws Exception {
		return OptionsApiTests.http
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/api/options/monte-carlo"))
				.header("Content-Type", "application/json")
				.header("X-Tenant-Id", tenant)
				.POST(HttpRequest.BodyPublishers.ofString("{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,"
						+ "\"volatility\":0.2,\"paths\":" + paths + "}"))
				.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String location) throws Exception {
		return OptionsApiTests.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + location)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void politeTenantShouldGetItsTurnAndItsPlacesAgainstFourFloodingTenants() throws Exception {
		given(this.monteCarlo.simulate(any(MonteCarloRequest.class))).willAnswer((invocation) -> {
			CompletableFuture<MonteCarloResult> simulation = new CompletableFuture<>();
			this.politeStarts.add(invocation.<MonteCarloRequest>getArgument(0).paths() == POLITE_PATHS);
			this.simulations.add(simulation);
			return simulation;
		});
		// The first flooder takes the four slots and queues 6 more: its 10 places in the
		// store. The others queue 8 each: their share of the queue.
		for (int flooder = 1; flooder <= 4; flooder++) {
			int accepted = 0;
			HttpResponse<String> answer;
			while ((answer = post("flood-" + flooder, 4096)).statusCode() == 202) {
				accepted++;
			}
			assertThat(answer.statusCode()).isEqualTo(429);
			assertThat(answer.headers().firstValue("Retry-After")).isPresent();
			assertThat(accepted).isEqualTo((flooder == 1) ? 10 : 8);
		}
		List<String> politeJobs = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			HttpResponse<String> accepted = post("polite", POLITE_PATHS);
			assertThat(accepted.statusCode()).isEqualTo(202);
			assertThat(accepted.body()).contains("\"status\":\"QUEUED\"");
			politeJobs.add(accepted.headers().firstValue("Location").orElseThrow());
		}
		assertThat(this.simulations).hasSize(4);
		// The oldest job ends each time, the polite tenant's too.
		for (int freed = 0; freed < 10; freed++) {
			this.simulations.get(freed).complete(PRICE);
			int started = 5 + freed;
			await().atMost(Duration.ofSeconds(60)).until(() -> this.simulations.size() == started);
		}
		// Five tenants queued: the polite one got one of the first five slots freed, and
		// one of the next five.
		assertThat(this.politeStarts.subList(4, 9)).containsOnlyOnce(true);
		assertThat(this.politeStarts.subList(9, 14)).containsOnlyOnce(true);
		// Every accepted job runs, in turn.
		for (int i = 0; i < 10 + 3 * 8 + 2; i++) {
			int started = i + 1;
			await().atMost(Duration.ofSeconds(60)).until(() -> this.simulations.size() >= started);
			this.simulations.get(i).complete(PRICE);
		}
		for (String job : politeJobs) {
			assertThat(get(job).body()).contains("\"status\":\"DONE\"");
		}
	}

}
