package dev.offload.sample.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

import dev.offload.sample.pricing.MonteCarloRequest;
import dev.offload.sample.pricing.MonteCarloResult;
import dev.offload.sample.pricing.MonteCarloService;
import dev.offload.sample.pricing.OptionPricingService;
import dev.offload.sample.pricing.OptionSpec;

/**
 * Runs what the first requests need before readiness goes UP (an application runner runs
 * before Boot publishes {@code ACCEPTING_TRAFFIC}): a one-option and a two-option price
 * (the batcher's thread, the kernel's first launch, a stream of each class), a small
 * Monte Carlo simulation, and the price endpoint itself over loopback (the dispatcher
 * servlet, JSON, validation, admission), each with a generous bound. Without it the first
 * request after startup paid for all of that, seconds on a busy machine. A failure is
 * logged, never fatal: the first requests then pay, as before. The loopback requests say
 * {@code Connection: close}: a connection of the warm-up's left open would idle until
 * Tomcat's keep-alive timeout and, at a shutdown before then, hold the
 * {@link KeepAliveDrain} for that long.
 */
@Component
class StartupWarmup implements ApplicationRunner {

	static final Duration BOUND = Duration.ofSeconds(30);

	private static final Logger logger = LoggerFactory.getLogger(StartupWarmup.class);

	private static final OptionSpec OPTION = new OptionSpec(100.0, 95.0, 1.0, 0.03, 0.2);

	private final OptionPricingService pricing;

	private final MonteCarloService monteCarlo;

	private final ApplicationContext context;

	StartupWarmup(OptionPricingService pricing, MonteCarloService monteCarlo, ApplicationContext context) {
		this.pricing = pricing;
		this.monteCarlo = monteCarlo;
		this.context = context;
	}

	@Override
	public void run(ApplicationArguments args) {
		long start = System.nanoTime();
		try {
			this.pricing.price(List.of(OPTION), BOUND);
			this.pricing.price(List.of(OPTION, OPTION), BOUND);
			CompletableFuture<MonteCarloResult> simulation = this.monteCarlo
				.simulate(new MonteCarloRequest(100.0, 95.0, 1.0, 0.03, 0.2, MonteCarloRequest.MIN_PATHS, 1L));
			if (simulation != null) {
				simulation.get(BOUND.toSeconds(), TimeUnit.SECONDS);
			}
			priceOverLoopback();
			logger.info("Warmed up pricing in {} ms, before readiness", (System.nanoTime() - start) / 1_000_000);
		}
		catch (Exception ex) {
			logger.warn("The warm-up failed; the first requests will be slower: {}", ex.toString());
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void priceOverLoopback() throws Exception {
		if (!(this.context instanceof WebServerApplicationContext web) || web.getWebServer() == null
				|| web.getWebServer().getPort() <= 0) {
			return;
		}
		SimpleClientHttpRequestFactory requests = new SimpleClientHttpRequestFactory();
		requests.setConnectTimeout(BOUND);
		requests.setReadTimeout(BOUND);
		RestClient http = RestClient.builder()
			.requestFactory(requests)
			.baseUrl("http://127.0.0.1:" + web.getWebServer().getPort())
			.build();
		String option = "{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}";
		for (String body : List.of("{\"options\":[" + option + "]}", "{\"options\":[" + option + "," + option + "]}")) {
			HttpStatusCode status = http.post()
				.uri("/api/options/price")
				.header(HttpHeaders.CONNECTION, "close")
				.contentType(MediaType.APPLICATION_JSON)
				.body(body)
				.exchange((request, response) -> response.getStatusCode());
			logger.debug("Warm-up price request over loopback: {}", status);
		}
	}

}
