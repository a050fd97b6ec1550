package dev.offload.sample.risk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.OffloadTemplate;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.within;

/**
 * The P&amp;L matrix that BLAS computes on the host emulation (EJML) against plain loops
 * in double precision: equal within 1e-12 of the largest P&amp;L magnitude (the sums are
 * taken in another order, nothing else differs). And the pieces around it: the Cholesky
 * factor, the draws, the tail and the worst scenarios.
 */
class ScenarioRiskServiceTests {

	private static final double TOLERANCE = 1e-12;

	private DeviceRegistry registry;

	private ScenarioRiskService service;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
		this.service = new ScenarioRiskService(new OffloadTemplate(this.registry));
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void pnlOfGivenScenariosShouldEqualPlainLoops() {
		SplittableRandom random = new SplittableRandom(11);
		int p = 7;
		int f = 5;
		int s = 300;
		double[][] sensitivities = matrix(random, p, f, 1e5);
		double[][] scenarios = matrix(random, s, f, 0.05);
		ScenarioRiskInput input = ScenarioRiskInput
			.of(new ScenarioRiskRequest(positions(sensitivities), scenarios, null, null, null));
		double[] pnl = this.service.pnl(input, null, null).pnl();
		assertMatches(pnl, reference(scenarios, sensitivities));
		assertThat(this.registry).hasNothingLentAnywhere();
	}

	@Test
	void pnlOfDrawnScenariosShouldEqualDrawsTimesCholeskyTimesSensitivities() {
		SplittableRandom random = new SplittableRandom(12);
		int p = 6;
		int f = 4;
		int s = 250;
		double[][] sensitivities = matrix(random, p, f, 1e4);
		double[][] covariance = { { 0.04, 0.006, 0.0, 0.002 }, { 0.006, 0.09, 0.01, 0.0 }, { 0.0, 0.01, 0.01, 0.001 },
				{ 0.002, 0.0, 0.001, 0.0225 } };
		ScenarioRiskInput input = ScenarioRiskInput.of(new ScenarioRiskRequest(positions(sensitivities), null,
				new ScenarioGeneration(s, 99L, covariance), null, null));
		double[] l = input.cholesky;
		for (int i = 0; i < f; i++) {
			for (int j = 0; j < f; j++) {
				double product = 0;
				for (int k = 0; k < f; k++) {
					product += l[i + f * k] * l[j + f * k];
				}
				assertThat(product).as("(L L^T)[%d][%d]", i, j).isCloseTo(covariance[i][j], within(1e-15));
			}
		}
		double[] draws = NormalDraws.matrix(99, s, f);
		double[][] shocks = new double[s][f];
		for (int scenario = 0; scenario < s; scenario++) {
			for (int i = 0; i < f; i++) {
				for (int k = 0; k <= i; k++) {
					shocks[scenario][i] += l[i + f * k] * draws[scenario + s * k];
				}
			}
		}
		assertMatches(this.service.pnl(input, draws, null).pnl(), reference(shocks, sensitivities));
	}

	@Test
	void drawsShouldBeFixedBySeedAndExtendedByCount() {
		double[] fewer = NormalDraws.matrix(5, 10, 3);
		double[] more = NormalDraws.matrix(5, 20, 3);
		for (int s = 0; s < 10; s++) {
			for (int f = 0; f < 3; f++) {
				assertThat(more[s + 20 * f]).isEqualTo(fewer[s + 10 * f]);
			}
		}
		assertThat(NormalDraws.matrix(5, 10, 3)).containsExactly(fewer);
		assertThat(NormalDraws.matrix(6, 10, 3)).isNotEqualTo(fewer);
	}

	@Test
	void semiDefiniteCovarianceShouldFactorWithAZeroColumn() {
		// The second factor is twice the first: rank 1.
		double[] l = Cholesky.lower(new double[] { 1, 2, 2, 4 }, 2);
		assertThat(l).containsExactly(new double[] { 1, 2, 0, 0 }, within(1e-15));
		assertThat(Cholesky.lower(new double[] { 1, 2, 2, 1 }, 2)).isNull();
		assertThat(Cholesky.lower(new double[] { 0, 1, 1, 1 }, 2)).isNull();
	}

	@Test
	void tailShouldCountInDecimal() {
		assertThat(ScenarioRiskInput.tail(100, 0.95)).isEqualTo(5);
		assertThat(ScenarioRiskInput.tail(100, 0.99)).isEqualTo(1);
		assertThat(ScenarioRiskInput.tail(1000, 0.99)).isEqualTo(10);
		assertThat(ScenarioRiskInput.tail(10, 0.99)).isEqualTo(1);
		assertThat(ScenarioRiskInput.tail(150, 0.99)).isEqualTo(2);
		assertThat(ScenarioRiskInput.tail(3, 0.5)).isEqualTo(2);
	}

	@Test
	void worstShouldBeTheLowestValuesLowerIndexFirst() {
		double[] values = { 3, -1, 4, -5, 9, -5, 2, -6 };
		assertThat(ScenarioRiskService.worst(values, 3)).containsExactly(7, 3, 5);
		assertThat(ScenarioRiskService.worst(values, 8)).containsExactly(7, 3, 5, 1, 6, 0, 2, 4);
		assertThat(ScenarioRiskService.worst(values, 0)).isEmpty();
	}

	@Test
	void measuresShouldBeTheKthWorstLossAndTheMeanOfTheKWorst() {
		ScenarioRisk.Measures measures = ScenarioRiskService.measures(new double[] { 5, -2, 7, -8, 1, -4 }, 2);
		assertThat(measures.valueAtRisk()).isEqualTo(4);
		assertThat(measures.expectedShortfall()).isEqualTo(6);
		ScenarioRisk.Measures gains = ScenarioRiskService.measures(new double[] { 0, 3 }, 1);
		assertThat(Double.doubleToRawLongBits(gains.valueAtRisk())).isEqualTo(Double.doubleToRawLongBits(0.0));
	}

	private static void assertMatches(double[] pnl, double[][] reference) {
		int s = reference.length;
		int p = reference[0].length;
		assertThat(pnl).hasSize(s * p);
		double largest = 0;
		for (double[] row : reference) {
			for (double value : row) {
				largest = Math.max(largest, Math.abs(value));
			}
		}
		for (int i = 0; i < s; i++) {
			for (int j = 0; j < p; j++) {
				assertThat(pnl[i + s * j]).as("P&L of position %d in scenario %d", j, i)
					.isCloseTo(reference[i][j], within(TOLERANCE * largest));
			}
		}
	}

	/** The P&amp;L of each position in each scenario: the triple loop. */
	static double[][] reference(double[][] shocks, double[][] sensitivities) {
		double[][] pnl = new double[shocks.length][sensitivities.length];
		for (int s = 0; s < shocks.length; s++) {
			for (int p = 0; p < sensitivities.length; p++) {
				for (int f = 0; f < shocks[s].length; f++) {
					pnl[s][p] += shocks[s][f] * sensitivities[p][f];
				}
			}
		}
		return pnl;
	}

	private static double[][] matrix(SplittableRandom random, int rows, int cols, double scale) {
		double[][] matrix = new double[rows][cols];
		for (double[] row : matrix) {
			for (int j = 0; j < cols; j++) {
				row[j] = random.nextDouble(-scale, scale);
			}
		}
		return matrix;
	}

	private static List<Position> positions(double[][] sensitivities) {
		List<Position> positions = new ArrayList<>();
		for (int i = 0; i < sensitivities.length; i++) {
			positions.add(new Position("position-" + i, sensitivities[i]));
		}
		return positions;
	}

}
