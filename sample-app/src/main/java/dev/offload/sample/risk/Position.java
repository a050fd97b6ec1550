package dev.offload.sample.risk;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * One position of a portfolio: its P&amp;L per unit move of each risk factor.
 *
 * @param id the position's name, echoed in the result (at most {@value #MAX_ID}
 * characters)
 * @param sensitivities the P&amp;L of the position for a unit shock of each factor, one
 * value per factor, as many for every position
 */
public record Position(@NotBlank @Size(max = MAX_ID) String id, @NotNull double[] sensitivities) {

	/** The longest position id. */
	public static final int MAX_ID = 64;

}
