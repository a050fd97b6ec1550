package dev.offload.sample.pricing;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/**
 * One European option to price.
 *
 * @param spot the underlying's price now, positive
 * @param strike the strike price, positive
 * @param maturity the time to expiry in years, in (0, 100]
 * @param rate the continuously compounded risk-free rate, in [-1, 1]
 * @param volatility the annualised volatility, in (0, 5]
 */
public record OptionSpec(@NotNull @Finite @Positive Double spot, @NotNull @Finite @Positive Double strike,
		@NotNull @Finite @Positive @DecimalMax("100") Double maturity,
		@NotNull @Finite @DecimalMin("-1") @DecimalMax("1") Double rate,
		@NotNull @Finite @Positive @DecimalMax("5") Double volatility) {

}
