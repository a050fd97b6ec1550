package dev.offload.sample.pricing;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * A batch of options to price with the Black-Scholes closed form.
 *
 * @param options from 1 to {@value #MAX_OPTIONS} options
 */
public record PriceRequest(@NotNull @Size(min = 1, max = MAX_OPTIONS) List<@Valid @NotNull OptionSpec> options) {

	/** The largest batch one request may price. */
	public static final int MAX_OPTIONS = 4096;

}
