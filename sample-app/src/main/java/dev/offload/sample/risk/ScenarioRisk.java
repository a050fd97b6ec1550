package dev.offload.sample.risk;

import java.util.List;

/**
 * The risk of a portfolio over a scenario set. Losses are positive: the value at risk at
 * confidence {@code c} is the loss of the {@code k}-th worst scenario, and the expected
 * shortfall the mean loss of the {@code k} worst, where {@code k = ceil(S (1 - c))} (at
 * least 1) is {@code tailScenarios}.
 *
 * @param device the device that computed the P&amp;L matrix
 * @param backend the device's backend
 * @param positionCount {@code P}
 * @param factorCount {@code F}
 * @param scenarioCount {@code S}
 * @param confidence the confidence level
 * @param tailScenarios {@code k}
 * @param portfolio the portfolio's value at risk and expected shortfall (the P&amp;L of a
 * scenario is the sum of its positions')
 * @param positions each position's, in request order
 * @param worstScenarios the portfolio's worst scenarios, worst first
 */
public record ScenarioRisk(int device, String backend, int positionCount, int factorCount, int scenarioCount,
		double confidence, int tailScenarios, Measures portfolio, List<PositionRisk> positions,
		List<WorstScenario> worstScenarios) {

	/**
	 * Value at risk and expected shortfall, as losses.
	 *
	 * @param valueAtRisk the loss of the {@code k}-th worst scenario
	 * @param expectedShortfall the mean loss of the {@code k} worst scenarios
	 */
	public record Measures(double valueAtRisk, double expectedShortfall) {

	}

	/**
	 * One position's risk.
	 *
	 * @param id the position's id
	 * @param valueAtRisk its value at risk, alone
	 * @param expectedShortfall its expected shortfall, alone
	 */
	public record PositionRisk(String id, double valueAtRisk, double expectedShortfall) {

	}

	/**
	 * One of the worst scenarios for the portfolio.
	 *
	 * @param scenario its index in the scenario set (from 0)
	 * @param pnl the portfolio's P&amp;L in it
	 * @param shocks its factor shocks
	 */
	public record WorstScenario(int scenario, double pnl, double[] shocks) {

	}

}
