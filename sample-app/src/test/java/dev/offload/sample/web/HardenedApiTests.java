package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.sample.web.OptionsApiTests.json;
import static dev.offload.sample.web.OptionsApiTests.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a service exposed to real clients needs: strict input, problem details for every
 * error without Java names or long echoes, a body limit before parsing, security headers,
 * and health details kept private.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.max-request-body=64KB")
@AutoConfigureOffload
@ExtendWith(OutputCaptureExtension.class)
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
	void batchOfEmptyOptionsWhenWithinTheSizeLimitShouldReportAFewErrorsAndTheirCount() throws Exception {
		String body = "{\"options\":[" + String.join(",", java.util.Collections.nCopies(4096, "{}")) + "]}";
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price", body);
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).hasSizeLessThan(4 * 1024);
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("errorCount").asInt()).isEqualTo(5 * 4096);
		assertThat(problem.get("errors")).hasSize(ApiErrors.MAX_ERRORS);
		assertThat(problem.get("errors").get(0).get("field").asString()).isEqualTo("options[0].maturity");
		assertThat(problem.get("errors").get(0).get("message").asString()).isEqualTo("must not be null");
		assertThat(problem.get("detail").asString()).doesNotContain("must not be null");
	}

	@Test
	void batchOfEmptyOptionsWhenOverTheSizeLimitShouldReportOnlyTheSize() throws Exception {
		String body = "{\"options\":[" + String.join(",", java.util.Collections.nCopies(20_000, "{}")) + "]}";
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price", body);
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("errorCount").asInt()).isEqualTo(1);
		assertThat(problem.get("errors").get(0).get("field").asString()).isEqualTo("options");
		assertThat(problem.get("errors").get(0).get("message").asString()).isEqualTo("size must be between 1 and 4096");
	}

	@Test
	void duplicateFieldShouldBeA400NamingIt() throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/monte-carlo",
				"{\"spot\":100,\"spot\":-1,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,"
						+ "\"paths\":2048}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("detail").asString()).contains("Duplicate field 'spot'");
	}

	@Test
	void wildcardContentTypeShouldBeA415ProblemDetail() throws Exception {
		HttpResponse<String> response = OptionsApiTests.http.send(java.net.http.HttpRequest
			.newBuilder(java.net.URI.create("http://localhost:" + this.port + "/api/options/price"))
			.header("Content-Type", "*/*")
			.header("Accept", "application/json")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(415);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(json.readTree(response.body()).get("status").asInt()).isEqualTo(415);
	}

	@ParameterizedTest(name = "{0} {1} -> {2}")
	@CsvSource({ "GET, /error, 404", "POST, /error, 404", "TRACE, /api/options/price, 405" })
	void errorPathAndContainerErrorsShouldBeProblemDetails(String method, String path, int status) throws Exception {
		HttpResponse<String> response = send(this.port, method, path, null);
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("status").asInt()).isEqualTo(status);
		assertThat(response.body()).doesNotContain("trace").doesNotContain("exception");
		assertSecurityHeaders(response);
	}

	@Test
	void requestTomcatCannotParseShouldBeAProblemDetailWithSecurityHeaders() throws Exception {
		String answer;
		try (java.net.Socket socket = new java.net.Socket("localhost", this.port)) {
			// A guard against a hang, not a timing.
			socket.setSoTimeout(60_000);
			socket.getOutputStream()
				.write("GET /api/pools?x={} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
					.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
			answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
		}
		assertThat(answer).startsWith("HTTP/1.1 400")
			.containsIgnoringCase("X-Frame-Options: DENY")
			.containsIgnoringCase("X-Content-Type-Options: nosniff")
			.containsIgnoringCase("Content-Security-Policy: ");
	}

	static void assertSecurityHeaders(HttpResponse<String> response) {
		assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
		assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
		assertThat(response.headers().firstValue("Content-Security-Policy")).get()
			.asString()
			.contains("frame-ancestors 'none'");
		assertThat(response.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
	}

	@ParameterizedTest(name = "Accept: {0}")
	@ValueSource(strings = { ";;;", "application/" })
	void unparseableAcceptShouldBeA400ProblemDetail(String accept) throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}", accept);
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(json.readTree(response.body()).get("title").asString()).isEqualTo("Invalid Accept header");
		assertSecurityHeaders(response);
	}

	@Test
	void methodNotAllowedShouldNotBeLoggedAtWarn(CapturedOutput output) throws Exception {
		HttpResponse<String> response = send(this.port, "DELETE", "/api/options/price", null);
		assertThat(response.statusCode()).isEqualTo(405);
		assertThat(response.headers().firstValue("Allow")).hasValue("POST");
		assertThat(output.getAll().lines().filter((line) -> line.contains("DELETE")))
			.noneMatch((line) -> line.contains("WARN"));
	}

	@ParameterizedTest(name = "{0}: {1}")
	@CsvSource(delimiter = '|', value = { "strike|1, 1e300, -1, 100, 0.2", "spot|1e300, 1e-300, 0.03, 1, 0.2",
			"maturity|100, 95, 0.03, 1e-300, 0.2", "volatility|100, 100, 0, 1, 1e-320" })
	void priceWhenAnInputIsFiniteButExtremeShouldBeA400NamingIt(String field, String values) throws Exception {
		String[] value = values.split(", ");
		String body = "{\"options\":[{\"spot\":" + value[0] + ",\"strike\":" + value[1] + ",\"rate\":" + value[2]
				+ ",\"maturity\":" + value[3] + ",\"volatility\":" + value[4] + "}]}";
		HttpResponse<String> response = send(this.port, "POST", "/api/options/price", body);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("errors").get(0).get("field").asString())
			.isEqualTo("options[0]." + field);
	}

	@Test
	void monteCarloWhenTheSimulationCannotEstimateThePriceShouldBeA400NamingTheVolatility() throws Exception {
		HttpResponse<String> response = send(this.port, "POST", "/api/options/monte-carlo",
				"{\"spot\":1e300,\"strike\":1,\"maturity\":100,\"rate\":0,\"volatility\":5,\"paths\":2048}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("volatility");
	}

	@Test
	void poolsOnThePublicPortShouldShowOnlyWhatTheDashboardDraws() throws Exception {
		JsonNode pools = json.readTree(send(this.port, "GET", "/api/pools", null).body());
		JsonNode device = pools.get("devices").get(0);
		assertThat(device.propertyNames()).containsExactlyInAnyOrder("id", "healthy", "size", "inUse", "idle",
				"waiting", "peakInUse", "memoryUse");
		assertThat(device.get("memoryUse").asDouble()).isBetween(0.0, 1.0);
		assertThat(pools.propertyNames()).containsExactlyInAnyOrder("backend", "devices");
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
