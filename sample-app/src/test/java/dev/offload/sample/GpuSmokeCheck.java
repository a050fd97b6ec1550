package dev.offload.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * Runs the sample app on a real GPU and checks it from outside, over HTTP: health,
 * Black-Scholes prices against an independent computation, a Monte Carlo price within its
 * error, a burst of concurrent requests, and then a device failure (an out-of-bounds
 * write) that must turn health DOWN and requests into 503 while the JVM lives on. Run by
 * {@code scripts/gpu/gpu-run.sh} on the GPU machine; prints one {@code CHECK} line per
 * check and {@code SMOKE PASS} or {@code SMOKE FAIL}.
 */
public final class GpuSmokeCheck {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final Pattern DEVICE_0_FAILED = Pattern
		.compile("(?m)^offload_healthy_devices\\{backend=\"\\w+\",device=\"0\"} 0.0$");

	private static int failures;

	private GpuSmokeCheck() {
	}

	public static void main(String[] args) throws Exception {
		String backend = (args.length > 0) ? args[0] : "cuda";
		// The actuator has its own port (localhost only); the checks read health details,
		// so show them. The burst's 16 clients are all admitted, whatever the CPU count.
		ConfigurableApplicationContext context = SpringApplication.run(OffloadSampleApplication.class,
				"--server.port=0", "--management.server.port=0", "--management.endpoint.health.show-details=always",
				"--offload.backend=" + backend, "--offload.stream-pool.borrow-timeout=10s",
				"--sample.price.max-in-flight=64");
		String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
		String actuator = "http://localhost:" + context.getEnvironment().getProperty("local.management.port");
		try {
			JsonNode health = json.readTree(get(actuator + "/actuator/health").body());
			check("health UP on " + backend,
					"UP".equals(health.get("status").asString())
							&& backend.equals(health.at("/components/offload/details/backend").asString()),
					health.toString());
			checkPrices(base);
			checkMonteCarlo(base);
			checkBurst(base);
			checkDeviceFailure(base, actuator, context.getBean(DeviceRegistry.class));
		}
		finally {
			System.out.println(failures == 0 ? "SMOKE PASS" : "SMOKE FAIL: " + failures + " check(s) failed");
			context.close();
		}
		System.exit(failures == 0 ? 0 : 1);
	}

	private static void checkPrices(String base) throws Exception {
		SplittableRandom random = new SplittableRandom(1);
		int n = 4096;
		double[][] options = new double[n][];
		StringBuilder body = new StringBuilder("{\"options\":[");
		for (int i = 0; i < n; i++) {
			options[i] = new double[] { 50 + random.nextDouble(100), 50 + random.nextDouble(100),
					0.05 + random.nextDouble(3), random.nextDouble(-0.02, 0.08), 0.05 + random.nextDouble(0.8) };
			body.append(String.format(Locale.ROOT,
					"%s{\"spot\":%s,\"strike\":%s,\"maturity\":%s,\"rate\":%s,\"volatility\":%s}", (i > 0) ? "," : "",
					options[i][0], options[i][1], options[i][2], options[i][3], options[i][4]));
		}
		body.append("]}");
		long start = System.nanoTime();
		HttpResponse<String> response = post(base + "/api/options/price", body.toString());
		double millis = (System.nanoTime() - start) / 1e6;
		JsonNode priced = json.readTree(response.body());
		double maxError = 0;
		for (int i = 0; i < n; i++) {
			double[] o = options[i];
			maxError = Math.max(maxError, Math.abs(priced.get("prices").get(i).get("call").asDouble()
					- ReferencePrices.call(o[0], o[1], o[2], o[3], o[4])));
			maxError = Math.max(maxError, Math.abs(priced.get("prices").get(i).get("put").asDouble()
					- ReferencePrices.put(o[0], o[1], o[2], o[3], o[4])));
		}
		check(String.format(Locale.ROOT, "Black-Scholes %d options on %s, max |error| %.2e vs Commons Math, %.1f ms", n,
				priced.get("backend").asString(), maxError, millis), response.statusCode() == 200 && maxError < 1e-9,
				response.statusCode() + "");
	}

	private static void checkMonteCarlo(String base) throws Exception {
		long start = System.nanoTime();
		HttpResponse<String> started = post(base + "/api/options/monte-carlo",
				"{\"spot\":100,\"strike\":105,\"maturity\":1,\"rate\":0.03,\"volatility\":0.25,\"paths\":16777216,\"seed\":1}");
		String location = started.headers().firstValue("Location").orElseThrow();
		JsonNode job;
		do {
			Thread.sleep(2);
			job = json.readTree(get(base + location).body());
		}
		while ("RUNNING".equals(job.get("status").asString()) || "QUEUED".equals(job.get("status").asString()));
		double millis = (System.nanoTime() - start) / 1e6;
		JsonNode result = job.get("result");
		double exact = ReferencePrices.call(100, 105, 1, 0.03, 0.25);
		boolean ok = result != null
				&& Math.abs(result.get("price").asDouble() - exact) < 4 * result.get("standardError").asDouble();
		check(String.format(Locale.ROOT, "Monte Carlo 16M paths: %s, closed form %.6f, %.1f ms from POST to DONE",
				(result != null) ? result.get("price").asDouble() + " +- " + result.get("standardError").asDouble()
						: job.toString(),
				exact, millis), ok, job.toString());
	}

	private static void checkBurst(String base) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		String body = "{\"options\":[{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}]}";
		List<Future<long[]>> calls = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			calls.add(executor.submit(() -> {
				long start = System.nanoTime();
				int status = post(base + "/api/options/price", body).statusCode();
				return new long[] { status, System.nanoTime() - start };
			}));
		}
		long[] latencies = new long[calls.size()];
		int ok = 0;
		for (int i = 0; i < calls.size(); i++) {
			long[] result = calls.get(i).get();
			ok += (result[0] == 200) ? 1 : 0;
			latencies[i] = result[1];
		}
		executor.shutdown();
		Arrays.sort(latencies);
		check(String.format(Locale.ROOT,
				"burst of 2000 one-option requests from 16 threads: %d OK, p50 %.2f ms, p99 %.2f ms", ok,
				latencies[1000] / 1e6, latencies[1980] / 1e6), ok == 2000, "");
	}

	private static void checkDeviceFailure(String base, String actuator, DeviceRegistry registry) throws Exception {
		ModuleDefinition oob = ModuleDefinition.builder("oob")
			.imageResource("kernels/oob.ptx")
			.hostKernel("writeOutOfBounds", List.of(ParamKind.POINTER, ParamKind.INT64),
					(t) -> t.ints(0).put((int) t.longArg(1), 42))
			.build();
		String error = "none";
		try (OffloadSession session = registry.device(0).openSession()) {
			DeviceBuffer data = session.allocate(1024);
			session.launch(registry.device(0).loadModule(oob).kernel("writeOutOfBounds"), LaunchConfig.of(1, 1), data,
					1L << 30);
			session.synchronize();
		}
		catch (RuntimeException ex) {
			error = ex.getMessage();
		}
		// CUDA reports an illegal address or, for an address far outside any allocation,
		// an invalid address space: either is sticky. The host backend reports
		// HOST_ERROR_ILLEGAL_ADDRESS.
		check("out-of-bounds kernel fails its session with a sticky error: " + error,
				error.contains("the device is unusable until the process restarts"), error);
		HttpResponse<String> health = get(actuator + "/actuator/health");
		JsonNode offload = json.readTree(health.body()).at("/components/offload");
		check("health DOWN after the failure: " + offload,
				health.statusCode() == 503 && "DOWN".equals(offload.get("status").asString())
						&& offload.at("/details/devices/0/error").asString().contains("unusable"),
				health.body());
		HttpResponse<String> price = post(base + "/api/options/price",
				"{\"options\":[{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}]}");
		check("requests after the failure get 503: " + price.body(), price.statusCode() == 503, "");
		check("JVM alive after the sticky error", Runtime.getRuntime().availableProcessors() > 0, "");
		HttpResponse<String> readiness = get(actuator + "/actuator/health/readiness");
		HttpResponse<String> liveness = get(actuator + "/actuator/health/liveness");
		check("readiness 503 and liveness 200 after the failure: " + readiness.body() + " " + liveness.body(),
				readiness.statusCode() == 503 && liveness.statusCode() == 200, "");
		String scrape = http
			.send(HttpRequest.newBuilder(URI.create(actuator + "/actuator/prometheus")).build(),
					HttpResponse.BodyHandlers.ofString())
			.body();
		check("offload_healthy_devices 0 for device 0 after the failure", DEVICE_0_FAILED.matcher(scrape).find(), "");
	}

	private static void check(String what, boolean ok, String detail) {
		System.out.println("CHECK " + (ok ? "PASS " : "FAIL ") + what + (ok ? "" : " -- " + detail));
		failures += ok ? 0 : 1;
	}

	private static HttpResponse<String> get(String uri) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create(uri)).header("Accept", "application/json").build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static HttpResponse<String> post(String uri, String body) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create(uri))
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
