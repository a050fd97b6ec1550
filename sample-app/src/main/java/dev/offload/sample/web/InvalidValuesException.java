package dev.offload.sample.web;

/**
 * A request with invalid values, found by {@link ElementValidator}; {@link ApiErrors}
 * answers it with a 400.
 */
final class InvalidValuesException extends RuntimeException {

	private final InvalidValues values;

	InvalidValuesException(InvalidValues values) {
		super(values.count() + " invalid values");
		this.values = values;
	}

	InvalidValues values() {
		return this.values;
	}

}
