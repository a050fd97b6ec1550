package dev.offload.sample.risk;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import dev.offload.sample.pricing.Finite;

/**
 * A portfolio and the scenarios to value it in: {@code P} positions, each with its
 * sensitivities to {@code F} risk factors, and either {@code S} scenarios of factor
 * shocks given row by row or a {@link ScenarioGeneration} that draws them.
 * <p>
 * Bean Validation checks the sizes and the scalar fields; the shapes (every position and
 * scenario with {@code F} values, an {@code F x F} covariance) and the values (finite)
 * are checked afterwards, listing at most ten invalid values ({@link ScenarioRiskInput}).
 * Besides each dimension, the products are bounded: the P&amp;L matrix ({@code S x P})
 * and the scenario matrix ({@code S x F}) hold at most {@value #MAX_MATRIX_CELLS} values
 * each (64 MB in double precision), and the product computes at most
 * {@value #MAX_MULTIPLY_ADDS} multiply-adds (about 2 s on one CPU with the host
 * emulation).
 *
 * @param positions from 1 to {@value #MAX_POSITIONS} positions
 * @param scenarios {@code S} rows of {@code F} factor shocks (from 1 to
 * {@value #MAX_SCENARIOS} rows), or {@code null} with {@code generate}
 * @param generate how to draw the scenarios, or {@code null} with {@code scenarios}
 * @param confidence the confidence level of the value at risk, in [0.5, 0.9999] (0.99
 * when absent)
 * @param worst how many of the worst scenarios to return, from 0 to {@value #MAX_WORST}
 * (5 when absent)
 */
public record ScenarioRiskRequest(@NotNull @Size(min = 1, max = MAX_POSITIONS) List<Position> positions,
		double[][] scenarios, @Valid ScenarioGeneration generate,
		@Finite @DecimalMin("0.5") @DecimalMax("0.9999") Double confidence, @Min(0) @Max(MAX_WORST) Integer worst) {

	/** The most positions in a portfolio. */
	public static final int MAX_POSITIONS = 4096;

	/** The most risk factors. */
	public static final int MAX_FACTORS = 512;

	/** The most scenarios. */
	public static final int MAX_SCENARIOS = 100_000;

	/** The most values in the P&amp;L matrix, and in the scenario matrix. */
	public static final long MAX_MATRIX_CELLS = 1L << 23;

	/** The most multiply-adds of the matrix products. */
	public static final long MAX_MULTIPLY_ADDS = 1L << 31;

	/** The most worst scenarios returned. */
	public static final int MAX_WORST = 20;

	/** The confidence level when the request gives none. */
	public static final double DEFAULT_CONFIDENCE = 0.99;

	/** The worst scenarios returned when the request says nothing. */
	public static final int DEFAULT_WORST = 5;

}
