package dev.offload.template;

import java.time.Duration;

import dev.offload.OffloadException;

/**
 * An item's deadline passed while it waited in a {@link Batcher}'s queue; it was dropped
 * from its batch.
 */
public class BatchTimeoutException extends OffloadException {

	private final Duration timeout;

	/**
	 * Creates an exception.
	 * @param batcher the batcher's name
	 * @param timeout the item's timeout
	 * @param waited how long it waited
	 */
	public BatchTimeoutException(String batcher, Duration timeout, Duration waited) {
		super("An item of '" + batcher + "' waited " + waited.toNanos() / 1000 + " µs in the batch queue, past its "
				+ "timeout of " + timeout.toNanos() / 1000 + " µs; it was dropped from its batch");
		this.timeout = timeout;
	}

	/**
	 * Returns the item's timeout.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

}
