package dev.offload.template;

import dev.offload.OffloadException;

/**
 * A {@link Batcher}'s queue holds its maximum of items, and refuses one more at once.
 */
public class BatchQueueFullException extends OffloadException {

	private final String batcher;

	private final int maxQueue;

	/**
	 * Creates an exception.
	 * @param batcher the batcher's name
	 * @param maxQueue the bound of its queue
	 */
	public BatchQueueFullException(String batcher, int maxQueue) {
		super("The batch queue of '" + batcher + "' holds its maximum of " + maxQueue
				+ " items; the item was refused. Raise offload.batching.max-queue, or shed load before submitting");
		this.batcher = batcher;
		this.maxQueue = maxQueue;
	}

	/**
	 * Returns the batcher's name.
	 * @return the name
	 */
	public String getBatcher() {
		return this.batcher;
	}

	/**
	 * Returns the bound of the queue.
	 * @return the most items waiting
	 */
	public int getMaxQueue() {
		return this.maxQueue;
	}

}
