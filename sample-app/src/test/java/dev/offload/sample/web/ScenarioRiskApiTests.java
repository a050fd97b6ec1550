package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.within;

/**
 * {@code POST /api/portfolio/scenario-risk} over real HTTP on the host backend (BLAS on
 * EJML): the P&amp;L behind the answer against plain loops, value at risk and expected
 * shortfall on a case worked by hand, drawn scenarios, and invalid or oversized requests
 * as 400 problem details naming the fields.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureOffload
class ScenarioRiskApiTests {

	private static final String PATH = "/api/portfolio/scenario-risk";

	/**
	 * Double precision sums in another order than the loops': 1e-9 of values near 1e5.
	 */
	private static final double TOLERANCE = 1e-9;

	static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	private HttpResponse<String> post(Object body) throws Exception {
		return OptionsApiTests.send(this.port, "POST", PATH,
				(body instanceof String text) ? text : json.writeValueAsString(body));
	}

	private JsonNode ok(Object body) throws Exception {
		HttpResponse<String> response = post(body);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static Map<String, Object> request(double[][] sensitivities, double[][] scenarios, double confidence,
			int worst) {
		Map<String, Object> request = new LinkedHashMap<>();
		request.put("positions", positions(sensitivities));
		request.put("scenarios", scenarios);
		request.put("confidence", confidence);
		request.put("worst", worst);
		return request;
	}

	private static List<Map<String, Object>> positions(double[][] sensitivities) {
		List<Map<String, Object>> positions = new ArrayList<>();
		for (int i = 0; i < sensitivities.length; i++) {
			positions.add(Map.of("id", "book-" + i, "sensitivities", sensitivities[i]));
		}
		return positions;
	}

	@Test
	void riskShouldBeReadOffThePnlOfPlainLoops() throws Exception {
		SplittableRandom random = new SplittableRandom(3);
		int p = 4;
		int f = 3;
		int s = 20;
		double[][] sensitivities = new double[p][f];
		double[][] scenarios = new double[s][f];
		Arrays.stream(sensitivities).forEach((row) -> Arrays.setAll(row, (j) -> random.nextDouble(-1e5, 1e5)));
		Arrays.stream(scenarios).forEach((row) -> Arrays.setAll(row, (j) -> random.nextDouble(-0.05, 0.05)));
		double[][] pnl = new double[s][p];
		for (int i = 0; i < s; i++) {
			for (int j = 0; j < p; j++) {
				for (int k = 0; k < f; k++) {
					pnl[i][j] += scenarios[i][k] * sensitivities[j][k];
				}
			}
		}
		// 20 scenarios at 0.9: a tail of 2.
		JsonNode body = ok(request(sensitivities, scenarios, 0.9, 20));
		assertThat(body.get("backend").asString()).isEqualTo("host");
		assertThat(body.get("tailScenarios").asInt()).isEqualTo(2);
		for (int j = 0; j < p; j++) {
			int position = j;
			double[] column = IntStream.range(0, s).mapToDouble((i) -> pnl[i][position]).sorted().toArray();
			JsonNode risk = body.get("positions").get(j);
			assertThat(risk.get("id").asString()).isEqualTo("book-" + j);
			assertThat(risk.get("valueAtRisk").asDouble()).isCloseTo(-column[1], within(TOLERANCE));
			assertThat(risk.get("expectedShortfall").asDouble()).isCloseTo(-(column[0] + column[1]) / 2,
					within(TOLERANCE));
		}
		// Every scenario is among the 20 worst: the portfolio's P&L in each, worst first.
		double[] portfolio = Arrays.stream(pnl).mapToDouble((row) -> Arrays.stream(row).sum()).toArray();
		List<Integer> order = IntStream.range(0, s)
			.boxed()
			.sorted(Comparator.comparingDouble((i) -> portfolio[i]))
			.toList();
		JsonNode worst = body.get("worstScenarios");
		assertThat(worst).hasSize(s);
		for (int rank = 0; rank < s; rank++) {
			int scenario = order.get(rank);
			assertThat(worst.get(rank).get("scenario").asInt()).isEqualTo(scenario);
			assertThat(worst.get(rank).get("pnl").asDouble()).isCloseTo(portfolio[scenario], within(TOLERANCE));
			assertThat(worst.get(rank).get("shocks").get(2).asDouble()).isEqualTo(scenarios[scenario][2]);
		}
		assertThat(body.get("portfolio").get("valueAtRisk").asDouble()).isCloseTo(-portfolio[order.get(1)],
				within(TOLERANCE));
		assertThat(this.registry).hasNothingLentAnywhere();
	}

	@Test
	void valueAtRiskAndExpectedShortfallShouldMatchTheCaseWorkedByHand() throws Exception {
		// Two positions, each exposed to one factor, in 10 scenarios at 0.8: a tail of 2.
		// Position A's P&L -5 3 -1 2 0 -3 4 1 -2 5: worst -5, -3, so VaR 3, ES 4.
		// Position B's P&L 1 -2 -4 2 -1 0 3 -6 5 1: worst -6, -4, so VaR 4, ES 5.
		// The portfolio's -4 1 -5 4 -1 -3 7 -5 3 6: worst -5 (s2), -5 (s7), -4 (s0): VaR
		// 5,
		// ES 5.
		double[][] scenarios = { { -5, 1 }, { 3, -2 }, { -1, -4 }, { 2, 2 }, { 0, -1 }, { -3, 0 }, { 4, 3 }, { 1, -6 },
				{ -2, 5 }, { 5, 1 } };
		JsonNode body = ok(request(new double[][] { { 1, 0 }, { 0, 1 } }, scenarios, 0.8, 3));
		assertThat(body.get("scenarioCount").asInt()).isEqualTo(10);
		assertThat(body.get("positionCount").asInt()).isEqualTo(2);
		assertThat(body.get("factorCount").asInt()).isEqualTo(2);
		assertThat(body.get("confidence").asDouble()).isEqualTo(0.8);
		assertThat(body.get("tailScenarios").asInt()).isEqualTo(2);
		assertThat(measures(body.get("positions").get(0))).containsExactly(3.0, 4.0);
		assertThat(measures(body.get("positions").get(1))).containsExactly(4.0, 5.0);
		assertThat(measures(body.get("portfolio"))).containsExactly(5.0, 5.0);
		JsonNode worst = body.get("worstScenarios");
		assertThat(worst).extracting((w) -> w.get("scenario").asInt()).containsExactly(2, 7, 0);
		assertThat(worst).extracting((w) -> w.get("pnl").asDouble()).containsExactly(-5.0, -5.0, -4.0);
		assertThat(worst.get(0).get("shocks")).extracting(JsonNode::asDouble).containsExactly(-1.0, -4.0);
	}

	private static double[] measures(JsonNode node) {
		return new double[] { node.get("valueAtRisk").asDouble(), node.get("expectedShortfall").asDouble() };
	}

	@Test
	void drawnScenariosShouldFollowTheCovarianceAndTheSeed() throws Exception {
		// One position worth 1,000 per unit of a factor of standard deviation 0.02: its
		// 99% VaR is 2.326 x 20 = 46.5, its ES 2.665 x 20 = 53.3, within the sampling
		// error of 100,000 draws (about 1%).
		Map<String, Object> request = new LinkedHashMap<>();
		request.put("positions", List.of(Map.of("id", "fx", "sensitivities", new double[] { 1000 })));
		request.put("generate", Map.of("count", 100_000, "seed", 2024, "covariance", new double[][] { { 0.0004 } }));
		JsonNode body = ok(request);
		assertThat(body.get("confidence").asDouble()).isEqualTo(0.99);
		assertThat(body.get("tailScenarios").asInt()).isEqualTo(1000);
		assertThat(body.get("worstScenarios")).hasSize(5);
		assertThat(body.get("positions").get(0).get("valueAtRisk").asDouble()).isCloseTo(46.53, within(1.5));
		assertThat(body.get("positions").get(0).get("expectedShortfall").asDouble()).isCloseTo(53.30, within(1.5));
		assertThat(body.get("portfolio").get("valueAtRisk").asDouble())
			.isEqualTo(body.get("positions").get(0).get("valueAtRisk").asDouble());
		// The same seed, the same scenarios; the shocks are the P&L per 1,000.
		JsonNode again = ok(request);
		assertThat(again.get("worstScenarios")).isEqualTo(body.get("worstScenarios"));
		JsonNode worst = body.get("worstScenarios").get(0);
		assertThat(worst.get("pnl").asDouble()).isCloseTo(1000 * worst.get("shocks").get(0).asDouble(), within(1e-9));
	}

	@Test
	void correlatedFactorsShouldAddUpInThePortfolio() throws Exception {
		// Two positions long the same move: factors perfectly correlated (a semi-definite
		// covariance), so the portfolio's VaR is the sum of the positions'.
		Map<String, Object> request = new LinkedHashMap<>();
		request.put("positions", List.of(Map.of("id", "a", "sensitivities", new double[] { 100, 0 }),
				Map.of("id", "b", "sensitivities", new double[] { 0, 50 })));
		request.put("generate",
				Map.of("count", 5000, "seed", 1, "covariance", new double[][] { { 0.01, 0.02 }, { 0.02, 0.04 } }));
		request.put("confidence", 0.95);
		JsonNode body = ok(request);
		double a = body.get("positions").get(0).get("valueAtRisk").asDouble();
		double b = body.get("positions").get(1).get("valueAtRisk").asDouble();
		assertThat(b).isCloseTo(a, within(1e-9));
		assertThat(body.get("portfolio").get("valueAtRisk").asDouble()).isCloseTo(a + b, within(1e-9));
	}

	@Test
	void invalidScalarsShouldBeA400NamingTheFields() throws Exception {
		HttpResponse<String> response = post(
				"{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1]}],\"scenarios\":[[1]],\"confidence\":1.5,\"worst\":-1}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(errors(response)).containsExactly("confidence must be less than or equal to 0.9999",
				"worst must be greater than or equal to 0");
	}

	@Test
	void inconsistentShapesAndNonFiniteValuesShouldBeA400NamingTheFields() throws Exception {
		HttpResponse<String> response = post("{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1,2]},"
				+ "{\"id\":\"b\",\"sensitivities\":[1,2,3]},{\"id\":\" \",\"sensitivities\":[1,2]}],"
				+ "\"scenarios\":[[1,2],[1e400,0],[3]]}");
		assertThat(response.statusCode()).isEqualTo(400);
		// The positions one by one first (the blank id), as the price API's options.
		assertThat(errors(response)).containsExactly("positions[2].id must not be blank");
		response = post("{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1,2]},"
				+ "{\"id\":\"b\",\"sensitivities\":[1,2,3]}],\"scenarios\":[[1,2],[1e400,0],[3]]}");
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("title").asString()).isEqualTo("Invalid request");
		assertThat(body.get("detail").asString()).isEqualTo("The request has 3 invalid values");
		assertThat(errors(response)).containsExactly(
				"positions[1].sensitivities must hold 2 values, as positions[0].sensitivities does",
				"scenarios[1][0] must be a finite number", "scenarios[2] must hold 2 values, one per factor");
	}

	@Test
	void manyInvalidValuesShouldListTenAndCountAll() throws Exception {
		double[] sensitivities = new double[15];
		String values = String.join(",", java.util.Collections.nCopies(15, "1e999"));
		HttpResponse<String> response = post("{\"positions\":[{\"id\":\"a\",\"sensitivities\":["
				+ Arrays.toString(sensitivities).replaceAll("[\\[\\] ]", "") + "]}],\"scenarios\":[[" + values + "]]}");
		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("errorCount").asInt()).isEqualTo(15);
		assertThat(body.get("detail").asString())
			.isEqualTo("The request has 15 invalid values; the first 10 are listed");
		assertThat(body.get("errors")).hasSize(10);
		assertThat(errors(response)).first().isEqualTo("scenarios[0][0] must be a finite number");
	}

	@Test
	void scenarioSetsShouldBeGivenOrDrawnFromAValidCovariance() throws Exception {
		String position = "{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1,2]}]";
		assertThat(errors(post(position + "}")))
			.containsExactly("scenarios either scenarios or generate must be given");
		assertThat(errors(
				post(position + ",\"scenarios\":[[1,2]],\"generate\":{\"count\":10,\"covariance\":[[1,0],[0,1]]}}")))
			.containsExactly("generate must not be given with scenarios");
		assertThat(errors(post(position + ",\"generate\":{\"count\":10,\"covariance\":[[1,2],[2,1]]}}")))
			.containsExactly("generate.covariance must be positive semi-definite");
		assertThat(errors(post(position + ",\"generate\":{\"count\":10,\"covariance\":[[1,0.5],[0.4,-1]]}}")))
			.containsExactlyInAnyOrder("generate.covariance[1][0] must equal generate.covariance[0][1]",
					"generate.covariance[1][1] must not be negative (a variance)");
		assertThat(errors(post(position + ",\"generate\":{\"count\":10,\"covariance\":[[1,0]]}}")))
			.containsExactly("generate.covariance must hold 2 rows, one per factor");
		assertThat(errors(post(position + ",\"generate\":{\"covariance\":[[1,0],[0,1]]}}")))
			.containsExactly("generate.count must not be null");
	}

	@Test
	void oversizedRequestsShouldBeA400NamingTheBound() throws Exception {
		List<String> many = new ArrayList<>();
		for (int i = 0; i < 4097; i++) {
			many.add("{\"id\":\"p\",\"sensitivities\":[1]}");
		}
		assertThat(errors(post("{\"positions\":[" + String.join(",", many) + "],\"scenarios\":[[1]]}")))
			.containsExactly("positions size must be between 1 and 4096");
		assertThat(errors(post("{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1]}],"
				+ "\"generate\":{\"count\":100001,\"covariance\":[[1]]}}")))
			.containsExactly("generate.count must be less than or equal to 100000");
		double[] factors = new double[513];
		assertThat(errors(post(Map.of("positions", List.of(Map.of("id", "a", "sensitivities", factors)), "scenarios",
				new double[][] { factors }))))
			.containsExactly("positions[0].sensitivities size must be between 1 and 512");
		// 100,000 scenarios of 100 positions: a P&L matrix of 10M values, over 8,388,608.
		double[][] covariance = { { 1 } };
		List<Map<String, Object>> hundred = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			hundred.add(Map.of("id", "p" + i, "sensitivities", new double[] { 1 }));
		}
		assertThat(errors(
				post(Map.of("positions", hundred, "generate", Map.of("count", 100_000, "covariance", covariance)))))
			.containsExactly("generate.count scenarios x positions must be at most 8388608, was 10000000");
		// 27,000 scenarios of 300 positions over 300 factors: within each matrix's bound,
		// but 2,457,000,000 multiply-adds (with the 300 x 300 x 300 of the Cholesky
		// product), over 2^31.
		List<Map<String, Object>> wide = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			wide.add(Map.of("id", "p" + i, "sensitivities", new double[300]));
		}
		assertThat(errors(post(
				Map.of("positions", wide, "generate", Map.of("count", 27_000, "covariance", new double[300][300])))))
			.containsExactly(
					"generate.count scenarios x positions x factors must be at most 2147483648, was 2457000000");
		assertThat(errors(post("{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1]}],\"scenarios\":[]}")))
			.containsExactly("scenarios size must be between 1 and 100000");
	}

	@Test
	void aNullValueShouldBeA400NamingItsField() throws Exception {
		HttpResponse<String> response = post(
				"{\"positions\":[{\"id\":\"a\",\"sensitivities\":[1,null]}],\"scenarios\":[[1,2]]}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("detail").asString()).contains("'positions[0].sensitivities[1]'");
	}

	@Test
	void dashboardShouldOfferScenarioRisk() throws Exception {
		String page = OptionsApiTests.send(this.port, "GET", "/", null, "text/html").body();
		assertThat(page).contains("id=\"risk-button\"").contains("id=\"risk-result\"");
		String script = OptionsApiTests.send(this.port, "GET", "/dashboard.js", null, "*/*").body();
		assertThat(script).contains("api/portfolio/scenario-risk");
	}

	private static List<String> errors(HttpResponse<String> response) throws Exception {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		List<String> errors = new ArrayList<>();
		json.readTree(response.body())
			.get("errors")
			.forEach((error) -> errors.add(error.get("field").asString() + " " + error.get("message").asString()));
		return errors;
	}

}
