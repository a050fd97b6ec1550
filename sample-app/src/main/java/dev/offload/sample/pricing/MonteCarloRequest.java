package dev.offload.sample.pricing;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * A European call to price by Monte Carlo simulation.
 *
 * <p>
 * The bounds are those of {@link OptionSpec}, and the spread of the simulated log-prices,
 * {@code volatility * sqrt(maturity)}, is at most {@value SimulationRange#MAX_SPREAD}:
 * beyond it the mean of the payoffs is carried by paths too rare to sample (at 50 the
 * simulation prices a call worth the spot at 0), so the request is refused.
 *
 * @param spot the underlying's price now, as in {@link OptionSpec}
 * @param strike the strike price, as in {@link OptionSpec}
 * @param maturity the time to expiry in years, as in {@link OptionSpec}
 * @param rate the continuously compounded risk-free rate, in [-1, 1]
 * @param volatility the annualised volatility, as in {@link OptionSpec}
 * @param paths the number of simulated paths, from {@value #MIN_PATHS} to
 * {@value #MAX_PATHS}
 * @param seed the random seed (optional; the same seed gives the same price on the same
 * backend)
 */
@SimulationRange
public record MonteCarloRequest(
		@NotNull @Finite @DecimalMin(OptionSpec.MIN_PRICE) @DecimalMax(OptionSpec.MAX_PRICE) Double spot,
		@NotNull @Finite @DecimalMin(OptionSpec.MIN_PRICE) @DecimalMax(OptionSpec.MAX_PRICE) Double strike,
		@NotNull @Finite @DecimalMin(OptionSpec.MIN_MATURITY) @DecimalMax("100") Double maturity,
		@NotNull @Finite @DecimalMin("-1") @DecimalMax("1") Double rate,
		@NotNull @Finite @DecimalMin(OptionSpec.MIN_VOLATILITY) @DecimalMax("5") Double volatility,
		@NotNull @Min(MIN_PATHS) @Max(MAX_PATHS) Integer paths, Long seed) {

	/** The fewest paths a request may ask for. */
	public static final int MIN_PATHS = 1024;

	/** The most paths a request may ask for. */
	public static final int MAX_PATHS = 64 * 1024 * 1024;

}
