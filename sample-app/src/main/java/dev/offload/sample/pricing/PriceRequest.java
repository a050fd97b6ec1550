package dev.offload.sample.pricing;

import java.util.List;

import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.annotation.JsonDeserialize;
import jakarta.validation.constraints.Size;

/**
 * A batch of options to price with the Black-Scholes closed form.
 * <p>
 * At most {@value #MAX_OPTIONS} + 1 options are bound
 * ({@link BoundedOptionsDeserializer}), whatever the body holds. Bean Validation checks
 * the batch's size only: its options are validated one by one after the size is accepted
 * (by the web layer), so a batch that is too large costs one error, not one per option,
 * and an invalid batch's errors are counted without being held.
 *
 * @param options from 1 to {@value #MAX_OPTIONS} options
 */
public record PriceRequest(@NotNull @Size(min = 1,
		max = MAX_OPTIONS) @JsonDeserialize(using = BoundedOptionsDeserializer.class) List<OptionSpec> options) {

	/** The largest batch one request may price. */
	public static final int MAX_OPTIONS = 4096;

}
