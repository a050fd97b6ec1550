package dev.offload.sample.web;

import java.time.Duration;

/**
 * A tenant holds its share of the Monte Carlo job store ({@code
 * sample.jobs.max-retained-per-tenant}) or of the queue ({@code
 * sample.jobs.max-queued-per-tenant}): answered 429 with {@code Retry-After}.
 */
final class TooManyJobsException extends RuntimeException {

	private final String detail;

	private final Duration retryAfter;

	/**
	 * Creates the exception.
	 * @param message what happened, for the log (it names the tenant)
	 * @param detail what the client is told
	 * @param retryAfter when it may try again
	 */
	TooManyJobsException(String message, String detail, Duration retryAfter) {
		super(message);
		this.detail = detail;
		this.retryAfter = retryAfter;
	}

	/**
	 * A tenant's places in the job store are all taken, until its oldest result expires.
	 * @param tenant the tenant
	 * @param places its places
	 * @param retryAfter when its oldest result expires
	 * @return the exception
	 */
	static TooManyJobsException storeFull(String tenant, int places, Duration retryAfter) {
		return new TooManyJobsException("Tenant " + tenant + " holds its " + places + " places in the job store",
				"Your Monte Carlo jobs hold your share of the job store; retry after " + seconds(retryAfter) + " s",
				retryAfter);
	}

	String detail() {
		return this.detail;
	}

	/**
	 * Returns the seconds to wait, at least 1.
	 * @return the seconds
	 */
	long retryAfterSeconds() {
		return seconds(this.retryAfter);
	}

	private static long seconds(Duration duration) {
		return Math.max(1, (duration.toMillis() + 999) / 1000);
	}

}
