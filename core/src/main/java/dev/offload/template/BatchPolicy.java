package dev.offload.template;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * How a {@link Batcher} gathers items into batches (Triton's dynamic batcher): a batch is
 * dispatched as soon as the largest of the {@code preferredBatchSizes} (or, without
 * preferred sizes, {@code maxBatchSize}) items are queued, or when the oldest queued item
 * has waited {@code maxDelay}; it then takes the largest of the
 * {@code preferredBatchSizes} that the queue can fill (all queued items, up to
 * {@code maxBatchSize}, if there are none or none fits; the rest follows at once in the
 * next batch). At most {@code maxQueue} items wait; more are refused at once. A preferred
 * size also bounds the wait: callers that come back as soon as they have their result (a
 * closed loop of fewer callers than {@code maxBatchSize}) never fill a batch of
 * {@code maxBatchSize}, and each batch would wait the whole delay.
 *
 * @param maxBatchSize the most items in one batch; at least 1
 * @param preferredBatchSizes batch sizes the kernel runs best at (a captured shape, a
 * multiple of the warp size), each from 1 to {@code maxBatchSize}; empty for none
 * @param maxDelay how long the first item of a batch waits for others; zero dispatches
 * what is queued at once
 * @param maxQueue the most items waiting; at least {@code maxBatchSize}
 */
public record BatchPolicy(int maxBatchSize, List<Integer> preferredBatchSizes, Duration maxDelay, int maxQueue) {

	/**
	 * The defaults: batches of up to 1024 items, no preferred sizes, 200 µs of delay, up
	 * to 65,536 items queued.
	 */
	public static final BatchPolicy DEFAULTS = new BatchPolicy(1024, List.of(), Duration.ofNanos(200_000), 65_536);

	/**
	 * Checks the values.
	 * @param maxBatchSize the most items in one batch
	 * @param preferredBatchSizes preferred batch sizes
	 * @param maxDelay how long the first item of a batch waits for others
	 * @param maxQueue the most items waiting
	 * @throws IllegalArgumentException naming the value out of its bounds
	 */
	public BatchPolicy {
		if (maxBatchSize < 1) {
			throw new IllegalArgumentException("maxBatchSize must be at least 1, was " + maxBatchSize);
		}
		if (preferredBatchSizes == null) {
			throw new IllegalArgumentException("preferredBatchSizes must not be null (empty for none)");
		}
		for (Integer size : preferredBatchSizes) {
			if (size == null || size < 1 || size > maxBatchSize) {
				throw new IllegalArgumentException("preferredBatchSizes must be from 1 to maxBatchSize (" + maxBatchSize
						+ "), was " + preferredBatchSizes);
			}
		}
		preferredBatchSizes = preferredBatchSizes.stream().distinct().sorted().toList();
		if (maxDelay == null || maxDelay.isNegative()) {
			throw new IllegalArgumentException("maxDelay must be zero or positive, was " + maxDelay);
		}
		if (maxQueue < maxBatchSize) {
			throw new IllegalArgumentException(
					"maxQueue must be at least maxBatchSize (" + maxBatchSize + "), was " + maxQueue);
		}
	}

	/**
	 * Returns a copy with another maximum batch size.
	 * @param value the most items in one batch
	 * @return the new policy
	 */
	public BatchPolicy withMaxBatchSize(int value) {
		return new BatchPolicy(value, this.preferredBatchSizes, this.maxDelay, Math.max(value, this.maxQueue));
	}

	/**
	 * Returns a copy with other preferred batch sizes.
	 * @param values the sizes
	 * @return the new policy
	 */
	public BatchPolicy withPreferredBatchSizes(int... values) {
		return new BatchPolicy(this.maxBatchSize, Arrays.stream(values).boxed().toList(), this.maxDelay, this.maxQueue);
	}

	/**
	 * Returns a copy with another maximum delay.
	 * @param value how long the first item of a batch waits for others
	 * @return the new policy
	 */
	public BatchPolicy withMaxDelay(Duration value) {
		return new BatchPolicy(this.maxBatchSize, this.preferredBatchSizes, value, this.maxQueue);
	}

	/**
	 * Returns a copy with another queue bound.
	 * @param value the most items waiting
	 * @return the new policy
	 */
	public BatchPolicy withMaxQueue(int value) {
		return new BatchPolicy(this.maxBatchSize, this.preferredBatchSizes, this.maxDelay, value);
	}

	/**
	 * Returns how many queued items make a batch dispatch at once: the largest preferred
	 * size, else the maximum.
	 * @return the count
	 */
	int dispatchSize() {
		return this.preferredBatchSizes.isEmpty() ? this.maxBatchSize
				: this.preferredBatchSizes.get(this.preferredBatchSizes.size() - 1);
	}

	/**
	 * Returns how many of {@code queued} items the next batch takes.
	 * @param queued the items waiting, at least 1
	 * @return the batch's size
	 */
	int cut(int queued) {
		int size = Math.min(queued, this.maxBatchSize);
		for (int i = this.preferredBatchSizes.size() - 1; i >= 0; i--) {
			if (this.preferredBatchSizes.get(i) <= size) {
				return this.preferredBatchSizes.get(i);
			}
		}
		return size;
	}

}
