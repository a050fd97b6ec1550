package dev.offload.sample.web;

import java.util.List;

/**
 * Invalid values of a request, as a 400 reports them: the first few, and how many there
 * are in all.
 *
 * @param listed the first invalid values, at most {@link ApiErrors#MAX_ERRORS}
 * @param count how many invalid values the request has
 */
record InvalidValues(List<InvalidValue> listed, int count) {

	/**
	 * One invalid value.
	 *
	 * @param field the field's path in the request, such as {@code options[3].spot}
	 * @param message what is wrong with it
	 */
	record InvalidValue(String field, String message) {

	}

}
