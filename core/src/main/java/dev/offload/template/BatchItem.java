package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A caller's item of a {@link Batcher}, queued until its batch completes. An item with a
 * timeout is either dispatched or expired, whichever comes first: the dispatcher that
 * cuts it into a batch and the deadline timer each claim it, so that an item in a running
 * batch never also times out.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
final class BatchItem<I, O> {

	private static final int QUEUED = 0;

	private static final int DISPATCHED = 1;

	private static final int EXPIRED = 2;

	private final I value;

	private final long submittedNanos;

	private final @Nullable Duration timeout;

	private final CompletableFuture<O> future;

	private final String tenant;

	private final AtomicInteger state = new AtomicInteger(QUEUED);

	private volatile @Nullable ScheduledFuture<?> expiry;

	/**
	 * Creates a queued item.
	 * @param value the item
	 * @param submittedNanos when it was submitted ({@link System#nanoTime()})
	 * @param timeout how long it may wait in the queue, or {@code null} for no deadline
	 * @param future completed with the item's result, or with its failure
	 * @param tenant the submitting tenant
	 */
	BatchItem(I value, long submittedNanos, @Nullable Duration timeout, CompletableFuture<O> future, String tenant) {
		this.value = value;
		this.submittedNanos = submittedNanos;
		this.timeout = timeout;
		this.future = future;
		this.tenant = tenant;
	}

	I value() {
		return this.value;
	}

	long submittedNanos() {
		return this.submittedNanos;
	}

	@Nullable Duration timeout() {
		return this.timeout;
	}

	CompletableFuture<O> future() {
		return this.future;
	}

	String tenant() {
		return this.tenant;
	}

	/**
	 * Tells whether the item's timeout passed at {@code nowNanos}.
	 */
	boolean isPastTimeout(long nowNanos) {
		Duration limit = this.timeout;
		return limit != null && nowNanos - this.submittedNanos > limit.toNanos();
	}

	/**
	 * Keeps the deadline timer's task that expires the item, to cancel it once the item
	 * is dispatched.
	 */
	void expiresWith(ScheduledFuture<?> task) {
		this.expiry = task;
		if (this.state.get() != QUEUED) {
			task.cancel(false);
		}
	}

	/**
	 * Claims the item for a batch.
	 * @return {@code false} if it expired (or was claimed) first
	 */
	boolean dispatch() {
		if (!this.state.compareAndSet(QUEUED, DISPATCHED)) {
			return false;
		}
		ScheduledFuture<?> task = this.expiry;
		if (task != null) {
			task.cancel(false);
		}
		return true;
	}

	/**
	 * Claims the item for its timeout.
	 * @return {@code false} if it was dispatched (or expired) first
	 */
	boolean expire() {
		return this.state.compareAndSet(QUEUED, EXPIRED);
	}

}
