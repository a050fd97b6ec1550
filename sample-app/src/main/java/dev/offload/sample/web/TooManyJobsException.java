package dev.offload.sample.web;

import java.time.Duration;

/**
 * A client holds its share of the Monte Carlo job store ({@code
 * sample.jobs.max-retained-per-client}): answered 429 with {@code Retry-After}, the time
 * until its oldest result expires and frees a place.
 */
final class TooManyJobsException extends RuntimeException {

	private final Duration retryAfter;

	TooManyJobsException(String client, int places, Duration retryAfter) {
		super("Client " + client + " holds its " + places + " places in the job store");
		this.retryAfter = retryAfter;
	}

	/**
	 * Returns the seconds to wait, at least 1.
	 * @return the seconds
	 */
	long retryAfterSeconds() {
		long seconds = (this.retryAfter.toMillis() + 999) / 1000;
		return Math.max(1, seconds);
	}

}
