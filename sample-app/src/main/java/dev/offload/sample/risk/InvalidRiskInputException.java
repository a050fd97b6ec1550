package dev.offload.sample.risk;

import java.util.List;

/**
 * A scenario risk request whose shapes or values are invalid: the first few invalid
 * values, and how many there are in all. The web layer answers it with a 400.
 */
public final class InvalidRiskInputException extends RuntimeException {

	private final transient List<Problem> listed;

	private final int count;

	InvalidRiskInputException(List<Problem> listed, int count) {
		super(count + " invalid values");
		this.listed = List.copyOf(listed);
		this.count = count;
	}

	/**
	 * Returns the first invalid values.
	 * @return at most {@link ScenarioRiskInput#MAX_LISTED} values, in the order found
	 */
	public List<Problem> listed() {
		return this.listed;
	}

	/**
	 * Returns how many invalid values the request has.
	 * @return the count, at least 1
	 */
	public int count() {
		return this.count;
	}

	/**
	 * One invalid value.
	 *
	 * @param field its path in the request, such as {@code positions[2].sensitivities[7]}
	 * @param message what is wrong with it
	 */
	public record Problem(String field, String message) {

	}

}
