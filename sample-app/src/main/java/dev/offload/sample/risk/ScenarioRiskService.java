package dev.offload.sample.risk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.stereotype.Service;

import dev.offload.Device;
import dev.offload.blas.Transpose;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadTemplate;

/**
 * Values a portfolio in every scenario with one matrix product on the device, then reads
 * its risk off the P&amp;L matrix on the CPU.
 * <p>
 * The P&amp;L of position {@code p} in scenario {@code s} is
 * {@code sum_f shock[s][f] sensitivity[p][f]}: the {@code S x P} P&amp;L matrix is
 * {@code shocks x sensitivities^T}, one {@code dgemm} ({@code S P F} multiply-adds).
 * Generated scenarios are {@code Z L^T} ({@code Z} the normal draws, {@code L} the
 * covariance's Cholesky factor), so the P&amp;L matrix is {@code Z (sensitivities L)^T}:
 * a small {@code dgemm} ({@code P F F}) gives the sensitivities to the independent draws,
 * and the shocks themselves are never formed. Both products run in one session, in double
 * precision (cuBLAS on a GPU, EJML on the host emulation), on the normal lane the Monte
 * Carlo jobs use, within the request's deadline.
 */
@Service
public class ScenarioRiskService {

	private final OffloadTemplate template;

	/**
	 * Creates the service.
	 * @param template the template whose BLAS operations compute the P&amp;L matrix
	 */
	public ScenarioRiskService(OffloadTemplate template) {
		this.template = template;
	}

	/**
	 * Computes a portfolio's risk over its scenarios.
	 * @param input the checked request
	 * @param timeout the time left for the device's work (the session's timeout), or
	 * {@code null} for the registry's default
	 * @return the risk
	 */
	public ScenarioRisk assess(ScenarioRiskInput input, Duration timeout) {
		// The draws are CPU work: made before the session, they hold no stream.
		double[] draws = (input.cholesky != null) ? NormalDraws.matrix(input.seed, input.scenarios, input.factors)
				: null;
		Valued valued = pnl(input, draws, timeout);
		return measure(input, draws, valued);
	}

	/**
	 * The {@code S x P} P&amp;L matrix, column-major (position {@code p}'s P&amp;L in
	 * scenario {@code s} at {@code s + S p}), and the device that computed it.
	 */
	Valued pnl(ScenarioRiskInput input, double[] draws, Duration timeout) {
		OffloadAttributes attributes = (timeout != null) ? OffloadAttributes.DEFAULTS.withTimeout(timeout)
				: OffloadAttributes.DEFAULTS;
		int s = input.scenarios;
		int p = input.positions;
		int f = input.factors;
		return this.template.execute(attributes, (session) -> {
			double[] pnl;
			if (input.cholesky == null) {
				pnl = this.template.blas()
					.dgemm(Transpose.NONE, Transpose.TRANSPOSE, s, p, f, 1, input.shocks, input.sensitivities);
			}
			else {
				// P x F: each position's P&L per unit of each independent draw.
				double[] loadings = this.template.blas()
					.dgemm(Transpose.NONE, Transpose.NONE, p, f, f, 1, input.sensitivities, input.cholesky);
				pnl = this.template.blas().dgemm(Transpose.NONE, Transpose.TRANSPOSE, s, p, f, 1, draws, loadings);
			}
			return new Valued(session.device(), pnl);
		});
	}

	private static ScenarioRisk measure(ScenarioRiskInput input, double[] draws, Valued valued) {
		int s = input.scenarios;
		int p = input.positions;
		double[] pnl = valued.pnl();
		double[] portfolio = new double[s];
		double[] scratch = new double[s];
		List<ScenarioRisk.PositionRisk> positions = new ArrayList<>(p);
		for (int j = 0; j < p; j++) {
			System.arraycopy(pnl, j * s, scratch, 0, s);
			for (int i = 0; i < s; i++) {
				portfolio[i] += scratch[i];
			}
			ScenarioRisk.Measures measures = measures(scratch, input.tail);
			positions
				.add(new ScenarioRisk.PositionRisk(input.ids[j], measures.valueAtRisk(), measures.expectedShortfall()));
		}
		List<ScenarioRisk.WorstScenario> worst = new ArrayList<>(input.worst);
		for (int index : worst(portfolio, input.worst)) {
			worst.add(new ScenarioRisk.WorstScenario(index, portfolio[index], shocks(input, draws, index)));
		}
		ScenarioRisk.Measures total = measures(portfolio.clone(), input.tail);
		return new ScenarioRisk(valued.device().id(), valued.device().backendName(), p, input.factors, s,
				input.confidence, input.tail, total, positions, worst);
	}

	/**
	 * Value at risk and expected shortfall of one P&amp;L distribution; sorts
	 * {@code values}.
	 * @param values the P&amp;L in each scenario
	 * @param tail {@code k}, from 1 to the number of scenarios
	 * @return the measures, as losses
	 */
	static ScenarioRisk.Measures measures(double[] values, int tail) {
		Arrays.sort(values);
		double sum = 0;
		for (int i = 0; i < tail; i++) {
			sum += values[i];
		}
		// + 0.0: a loss of -0.0 reads 0.0.
		return new ScenarioRisk.Measures(-values[tail - 1] + 0.0, -sum / tail + 0.0);
	}

	/**
	 * The indices of the {@code count} lowest values, lowest first (the lower index first
	 * among equal values).
	 */
	static int[] worst(double[] values, int count) {
		int[] worst = new int[count];
		int held = 0;
		for (int i = 0; i < values.length && count > 0; i++) {
			if (held == count && values[i] >= values[worst[held - 1]]) {
				continue;
			}
			int at = (held < count) ? held++ : held - 1;
			while (at > 0 && values[worst[at - 1]] > values[i]) {
				worst[at] = worst[at - 1];
				at--;
			}
			worst[at] = i;
		}
		return worst;
	}

	/**
	 * A scenario's factor shocks: given, or {@code L z_s} for a drawn one.
	 */
	private static double[] shocks(ScenarioRiskInput input, double[] draws, int scenario) {
		int s = input.scenarios;
		int f = input.factors;
		double[] shocks = new double[f];
		for (int j = 0; j < f; j++) {
			if (input.cholesky == null) {
				shocks[j] = input.shocks[scenario + s * j];
			}
			else {
				double value = 0;
				for (int k = 0; k <= j; k++) {
					value += input.cholesky[j + f * k] * draws[scenario + s * k];
				}
				shocks[j] = value;
			}
		}
		return shocks;
	}

	/**
	 * The P&amp;L matrix and the device that computed it.
	 *
	 * @param device the device
	 * @param pnl the matrix, {@code S x P}, column-major
	 */
	record Valued(Device device, double[] pnl) {

	}

}
