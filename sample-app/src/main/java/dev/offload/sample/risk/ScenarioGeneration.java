package dev.offload.sample.risk;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * Scenarios drawn from a multivariate normal distribution of factor shocks, with mean 0
 * and the given covariance: scenario {@code s} is {@code L z_s}, where {@code L} is the
 * covariance's Cholesky factor ({@code L L^T = covariance}) and {@code z_s} holds
 * {@code F} standard normal draws. The draws come from {@link java.util.SplittableRandom}
 * seeded with {@code seed} (Box-Muller), scenario after scenario, so the same seed and
 * covariance give the same scenarios, and a larger count extends a smaller one.
 *
 * @param count the number of scenarios, from 1 to
 * {@value ScenarioRiskRequest#MAX_SCENARIOS}
 * @param seed the seed (optional, 0 when absent)
 * @param covariance the factors' covariance, {@code F x F}, symmetric and positive
 * semi-definite, rows in factor order
 */
public record ScenarioGeneration(@NotNull @Min(1) @Max(ScenarioRiskRequest.MAX_SCENARIOS) Integer count, Long seed,
		@NotNull double[][] covariance) {

}
