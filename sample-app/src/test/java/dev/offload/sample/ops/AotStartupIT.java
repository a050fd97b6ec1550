package dev.offload.sample.ops;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.sample.OffloadSampleApplication;
import dev.offload.sample.pricing.MonteCarloService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app started from its Spring AOT output ({@code spring-boot:process-aot})
 * with {@code -Dspring.aot.enabled=true}, as {@code mvn verify} runs it: the endpoints,
 * the {@code @Offload} advice and the probes work as they do without AOT, and the pools
 * of the devices found at run time are beans.
 */
class AotStartupIT {

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext context;

	private int port;

	private int managementPort;

	@BeforeEach
	void start() {
		assertThat(AotDetector.useGeneratedArtifacts()).as("spring.aot.enabled").isTrue();
		SpringApplication application = new SpringApplication(OffloadSampleApplication.class);
		// AOT looks its initializer up by the main class, which is the test runner's when
		// deduced from the stack.
		application.setMainApplicationClass(OffloadSampleApplication.class);
		// The price request's deadline is the app's 1 s by default: a loaded build
		// machine
		// can miss it on a cold JVM, and what is checked here is the wiring, not the
		// time.
		this.context = application.run("--server.port=0", "--management.server.port=0", "--sample.price.timeout=60s");
		this.port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		this.managementPort = Integer.parseInt(this.context.getEnvironment().getProperty("local.management.port"));
	}

	@AfterEach
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void appWhenStartedFromAotOutputShouldServeEveryEndpoint() throws Exception {
		assertThat(send(this.managementPort, "GET", "/actuator/health/readiness", null).statusCode()).isEqualTo(200);
		HttpResponse<String> price = send(this.port, "POST", "/api/options/price",
				"{\"options\":[{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}]}");
		assertThat(price.statusCode()).as(price.body()).isEqualTo(200);
		HttpResponse<String> job = send(this.port, "POST", "/api/options/monte-carlo",
				"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.02,\"volatility\":0.3,\"paths\":4096}");
		assertThat(job.statusCode()).as(job.body()).isEqualTo(202);
		String location = job.headers().firstValue("Location").orElseThrow();
		await().atMost(Duration.ofMinutes(1))
			.until(() -> send(this.port, "GET", URI.create(location).getPath(), null).body(),
					(body) -> body.contains("DONE"));
		assertThat(send(this.managementPort, "GET", "/actuator/streampools", null).body()).contains("\"devices\"");
		assertThat(send(this.managementPort, "GET", "/actuator/prometheus", null).body())
			.contains("offload_healthy_devices{");
		// The job above ran through the advice only if AOT kept the proxy.
		assertThat(AopUtils.isAopProxy(this.context.getBean(MonteCarloService.class))).isTrue();
		// No pool bean is generated at build time (the sample lists no ids): the run
		// time's device is registered.
		assertThat(this.context.getBean("streamPool0", StreamPool.class))
			.isSameAs(this.context.getBean(DeviceRegistry.class).device(0).streamPool());
	}

	private HttpResponse<String> send(int port, String method, String path, String body) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.header("Content-Type", "application/json")
			.method(method,
					(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
