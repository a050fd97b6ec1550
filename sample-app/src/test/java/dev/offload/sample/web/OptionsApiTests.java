package dev.offload.sample.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.sample.ReferencePrices;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The pricing API over real HTTP on the host backend: results, validation, jobs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureOffload
class OptionsApiTests {

	static final JsonMapper json = JsonMapper.builder().build();

	static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	DeviceRegistry registry;

	static HttpResponse<String> send(int port, String method, String path, String body) throws Exception {
		return send(port, method, path, body, "application/json");
	}

	static HttpResponse<String> send(int port, String method, String path, String body, String accept)
			throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.header("Content-Type", "application/json")
			.header("Accept", accept);
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(String path, String body) throws Exception {
		return send(this.port, "POST", path, body);
	}

	static String option(double spot) {
		return "{\"spot\":" + spot + ",\"strike\":100,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}";
	}

	@Test
	void priceShouldReturnClosedFormPrices() throws Exception {
		HttpResponse<String> response = post("/api/options/price",
				"{\"options\":[" + option(90) + "," + option(110) + "]}");
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("backend").asString()).isEqualTo("host");
		assertThat(body.get("prices")).hasSize(2);
		assertThat(body.get("prices").get(0).get("call").asDouble())
			.isCloseTo(ReferencePrices.call(90, 100, 1, 0.03, 0.2), within(1e-9));
		assertThat(body.get("prices").get(1).get("put").asDouble())
			.isCloseTo(ReferencePrices.put(110, 100, 1, 0.03, 0.2), within(1e-9));
		assertThat(this.registry).hasNothingLentAnywhere();
	}

	@Test
	void badNumbersShouldBeA400NamingTheField() throws Exception {
		HttpResponse<String> response = post("/api/options/price",
				"{\"options\":[{\"spot\":-1,\"strike\":100,\"maturity\":1,\"rate\":0.03,\"volatility\":9}]}");
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("detail").asString()).isEqualTo("The request has 2 invalid values");
		assertThat(body.get("errors"))
			.extracting((error) -> error.get("field").asString() + " " + error.get("message").asString())
			.containsExactly("options[0].spot must be greater than or equal to 0.000001",
					"options[0].volatility must be less than or equal to 5");
	}

	@Test
	void emptyAndOversizedBatchesShouldBeA400() throws Exception {
		assertThat(post("/api/options/price", "{\"options\":[]}").body())
			.contains("{\"field\":\"options\",\"message\":\"size must be between 1 and 4096\"}");
		List<String> many = new ArrayList<>();
		for (int i = 0; i < 4097; i++) {
			many.add(option(100));
		}
		HttpResponse<String> oversized = post("/api/options/price", "{\"options\":[" + String.join(",", many) + "]}");
		assertThat(oversized.statusCode()).isEqualTo(400);
		assertThat(oversized.body())
			.contains("{\"field\":\"options\",\"message\":\"size must be between 1 and 4096\"}");
	}

	@Test
	void unknownFieldsShouldBeA400NamingTheField() throws Exception {
		HttpResponse<String> response = post("/api/options/price",
				"{\"options\":[{\"spot\":1,\"strike\":1,\"maturity\":1,\"rate\":0,\"volatility\":0.1,\"colour\":\"red\"}]}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("detail").asString()).contains("Unknown field 'colour'");
	}

	@Test
	void wrongTypesAndMalformedJsonShouldBeA400() throws Exception {
		HttpResponse<String> wrongType = post("/api/options/price",
				"{\"options\":[{\"spot\":\"lots\",\"strike\":1,\"maturity\":1,\"rate\":0,\"volatility\":0.1}]}");
		assertThat(wrongType.statusCode()).isEqualTo(400);
		assertThat(json.readTree(wrongType.body()).get("detail").asString())
			.contains("Invalid value for field 'options[0].spot'");
		HttpResponse<String> malformed = post("/api/options/price", "{\"options\":[");
		assertThat(malformed.statusCode()).isEqualTo(400);
		assertThat(json.readTree(malformed.body()).get("detail").asString()).startsWith("Malformed JSON");
	}

	@Test
	void monteCarloJobShouldFinishWithinItsStatisticalError() throws Exception {
		HttpResponse<String> started = post("/api/options/monte-carlo",
				"{\"spot\":100,\"strike\":95,\"maturity\":0.5,\"rate\":0.02,\"volatility\":0.3,\"paths\":1048576,\"seed\":5}");
		assertThat(started.statusCode()).isEqualTo(202);
		String location = started.headers().firstValue("Location").orElseThrow();
		assertThat(location).startsWith("/api/options/monte-carlo/");
		JsonNode done = await().atMost(Duration.ofMinutes(2))
			.until(() -> json.readTree(send(this.port, "GET", location, null).body()),
					(job) -> !"RUNNING".equals(job.get("status").asString())
							&& !"QUEUED".equals(job.get("status").asString()));
		assertThat(done.get("status").asString()).isEqualTo("DONE");
		JsonNode result = done.get("result");
		double exact = ReferencePrices.call(100, 95, 0.5, 0.02, 0.3);
		assertThat(result.get("price").asDouble()).isCloseTo(exact, within(4 * result.get("standardError").asDouble()));
		await().untilAsserted(() -> assertThat(this.registry).hasNothingLentAnywhere());
	}

	@Test
	void monteCarloWithTooFewPathsShouldBeA400() throws Exception {
		HttpResponse<String> response = post("/api/options/monte-carlo",
				"{\"spot\":100,\"strike\":95,\"maturity\":0.5,\"rate\":0.02,\"volatility\":0.3,\"paths\":10}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body())
			.contains("{\"field\":\"paths\",\"message\":\"must be greater than or equal to 1024\"}");
	}

	@Test
	void unknownJobShouldBeA404ProblemNamingTheJob() throws Exception {
		java.util.UUID id = java.util.UUID.randomUUID();
		HttpResponse<String> response = send(this.port, "GET", "/api/options/monte-carlo/" + id, null);
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(json.readTree(response.body()).get("detail").asString()).isEqualTo("No Monte Carlo job " + id);
	}

	@Test
	void streampoolsEndpointShouldBeExposedOnTheManagementPortOnly() throws Exception {
		assertThat(this.managementPort).isNotEqualTo(this.port);
		assertThat(send(this.port, "GET", "/actuator/streampools", null).statusCode()).isEqualTo(404);
		assertThat(send(this.port, "GET", "/api/pools", null).statusCode()).isEqualTo(200);
		HttpResponse<String> response = send(this.managementPort, "GET", "/actuator/streampools", null);
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("devices").get(0).get("pool").get("size").asInt()).isNotNegative();
		assertThat(send(this.managementPort, "GET", "/actuator/prometheus", null, "text/plain").body())
			.contains("offload_streams");
	}

	@Test
	void dashboardShouldBeServed() throws Exception {
		HttpResponse<String> response = send(this.port, "GET", "/", null, "text/html");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("stream pools, live");
	}

}
