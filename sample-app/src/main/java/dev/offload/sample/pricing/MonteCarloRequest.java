package dev.offload.sample.pricing;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/**
 * A European call to price by Monte Carlo simulation.
 *
 * @param spot the underlying's price now, positive
 * @param strike the strike price, positive
 * @param maturity the time to expiry in years, in (0, 100]
 * @param rate the continuously compounded risk-free rate, in [-1, 1]
 * @param volatility the annualised volatility, in (0, 5]
 * @param paths the number of simulated paths, from {@value #MIN_PATHS} to
 * {@value #MAX_PATHS}
 * @param seed the random seed (optional; the same seed gives the same price on the same
 * backend)
 */
public record MonteCarloRequest(@NotNull @Finite @Positive Double spot, @NotNull @Finite @Positive Double strike,
		@NotNull @Finite @Positive @DecimalMax("100") Double maturity,
		@NotNull @Finite @DecimalMin("-1") @DecimalMax("1") Double rate,
		@NotNull @Finite @Positive @DecimalMax("5") Double volatility,
		@NotNull @Min(MIN_PATHS) @Max(MAX_PATHS) Integer paths, Long seed) {

	/** The fewest paths a request may ask for. */
	public static final int MIN_PATHS = 1024;

	/** The most paths a request may ask for. */
	public static final int MAX_PATHS = 64 * 1024 * 1024;

}
