package dev.offload.sample.pricing;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;

/**
 * One European option to price.
 *
 * <p>
 * The bounds keep every price finite: inside them the Black-Scholes formula neither
 * overflows ({@code strike * exp(-rate * maturity)} at most about 3e55) nor divides by
 * zero ({@code volatility * sqrt(maturity)} at least 1e-7), so a request is priced or
 * refused with a 400 naming the field, never answered with {@code Infinity} or
 * {@code NaN}.
 *
 * @param spot the underlying's price now, in [{@value #MIN_PRICE}, {@value #MAX_PRICE}]
 * @param strike the strike price, in [{@value #MIN_PRICE}, {@value #MAX_PRICE}]
 * @param maturity the time to expiry in years, in [{@value #MIN_MATURITY}, 100] (the
 * lower bound is about 32 seconds)
 * @param rate the continuously compounded risk-free rate, in [-1, 1]
 * @param volatility the annualised volatility, in [{@value #MIN_VOLATILITY}, 5]
 */
public record OptionSpec(@NotNull @Finite @DecimalMin(MIN_PRICE) @DecimalMax(MAX_PRICE) Double spot,
		@NotNull @Finite @DecimalMin(MIN_PRICE) @DecimalMax(MAX_PRICE) Double strike,
		@NotNull @Finite @DecimalMin(MIN_MATURITY) @DecimalMax("100") Double maturity,
		@NotNull @Finite @DecimalMin("-1") @DecimalMax("1") Double rate,
		@NotNull @Finite @DecimalMin(MIN_VOLATILITY) @DecimalMax("5") Double volatility) {

	/** The lowest spot or strike accepted. */
	public static final String MIN_PRICE = "0.000001";

	/** The highest spot or strike accepted. */
	public static final String MAX_PRICE = "1000000000000";

	/** The shortest maturity accepted, in years. */
	public static final String MIN_MATURITY = "0.000001";

	/** The lowest volatility accepted. */
	public static final String MIN_VOLATILITY = "0.0001";

}
