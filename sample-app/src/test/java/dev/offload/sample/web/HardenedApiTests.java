package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.offload.sample.web.OptionsApiTests.json;
import static dev.offload.sample.web.OptionsApiTests.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a service exposed to real clients needs: strict input, problem details for every
 * error without Java names or long echoes, a body limit before parsing, security headers,
 * and health details kept private.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.max-request-body=64KB")
class HardenedApiTests {

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	static String monteCarlo(String spot, String paths) {
		return "{\"spot\":" + spot + ",\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,\"paths\":" + paths
				+ "}";
	}

	@ParameterizedTest(name = "spot={0} paths={1}")
	@CsvSource(delimiter = '|',
			value = { "\"Infinity\"|2048", "1e400|2048", "100|1024.7", "100|\"2048\"", "\"100\"|2048" })
	void monteCarloWhenValueIsNotAFiniteNumberOfTheRightTypeShouldBeA400(String spot, String paths) throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/monte-carlo", monteCarlo(spot, paths));
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.body()).doesNotContain("java.").doesNotContain("Integer").doesNotContain("Double");
	}

	@Test
	void priceWhenSpotIsInfinityShouldBeA400NotAnInfinitePrice() throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price",
				"{\"options\":[{\"spot\":1e400,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2}]}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("spot");
	}

	@Test
	void unreadableValueShouldEchoAtMostAFewCharacters() throws Exception {
		String longValue = "x".repeat(8000);
		HttpResponse<String> response = send(this.port, "POST", "/api/options/monte-carlo", "{\"spot\":\"" + longValue
				+ "\",\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2," + "\"paths\":2048}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).hasSizeLessThan(600).contains("spot");
	}

	@Test
	void malformedJsonShouldNameWhereItBroke() throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price", "{\"options\":[{]}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("detail").asString()).startsWith("Malformed JSON at line 1");
	}

	@Test
	void bodyLargerThanTheLimitShouldBeA413BeforeParsing() throws Exception {
		String body = "{\"options\":["
				+ "{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2},".repeat(1000) + "]}";
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price", body);
		assertThat(response.statusCode()).isEqualTo(413);
		assertThat(response.body()).contains("at most 65536");
	}

	@ParameterizedTest(name = "{0} {1} accept {2} -> {3}")
	@CsvSource({ "GET, /api/nothing, application/json, 404", "DELETE, /api/options/price, application/json, 405",
			"POST, /api/options/price, application/json, 415" })
	void errorsOutsideTheControllersShouldBeProblemDetails(String method, String path, String accept, int status)
			throws Exception {
		java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest
			.newBuilder(java.net.URI.create("http://localhost:" + this.port + path))
			.header("Accept", accept)
			.header("Content-Type", (status == 415) ? "text/plain" : "application/json");
		request.method(method, java.net.http.HttpRequest.BodyPublishers.ofString("{}"));
		HttpResponse<String> response = OptionsApiTests.http.send(request.build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(status);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("status").asInt()).isEqualTo(status);
		assertThat(body.has("title")).isTrue();
	}

	@Test
	void everyResponseShouldCarrySecurityHeaders() throws Exception {
		HttpResponse<String> response = send(this.port, "GET", "/", null, "text/html");
		assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
		assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
		assertThat(response.headers().firstValue("Content-Security-Policy")).get()
			.asString()
			.contains("frame-ancestors 'none'");
	}

	@Test
	void healthShouldNotShowDetailsToAnonymousCallers() throws Exception {
		HttpResponse<String> response = send(this.managementPort, "GET", "/actuator/health", null);
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("status").asString()).isEqualTo("UP");
		assertThat(body.has("components")).isFalse();
	}

}
