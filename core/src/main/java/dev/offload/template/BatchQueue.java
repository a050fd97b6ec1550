package dev.offload.template;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.ToIntFunction;

import dev.offload.internal.FairQueue;

/**
 * The items of a {@link Batcher} not yet cut into a batch: callers add to the arrivals
 * without a lock, and the dispatcher moves them to its pending items, from which it cuts
 * batches across tenants by their weights (a flooding tenant cannot fill every batch).
 * Only {@link #add(BatchItem)} is thread-safe; the other methods are called holding the
 * batcher's lock.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
final class BatchQueue<I, O> {

	/**
	 * Items submitted, not yet taken by the dispatcher: callers add without a lock, so
	 * that a burst of callers does not queue up on one (each waiter woken in turn).
	 */
	private final ConcurrentLinkedQueue<BatchItem<I, O>> arrivals = new ConcurrentLinkedQueue<>();

	/** The dispatcher's items, taken from the arrivals, in their order. */
	private final FairQueue<BatchItem<I, O>> pending = new FairQueue<>();

	/** The weight of a tenant. */
	private final ToIntFunction<String> weights;

	BatchQueue(ToIntFunction<String> weights) {
		this.weights = weights;
	}

	/** Adds a caller's item; takes no lock. */
	void add(BatchItem<I, O> item) {
		this.arrivals.add(item);
	}

	/** Moves the arrivals to the pending items, each under its tenant's weight. */
	void drainArrivals() {
		for (BatchItem<I, O> item = this.arrivals.poll(); item != null; item = this.arrivals.poll()) {
			this.pending.add(item.tenant(), this.weights.applyAsInt(item.tenant()), item);
		}
	}

	boolean isEmpty() {
		return this.pending.isEmpty();
	}

	int size() {
		return this.pending.size();
	}

	/** Returns when the oldest pending item was submitted; there must be one. */
	long oldestSubmittedNanos() {
		return Objects.requireNonNull(this.pending.oldest()).item().submittedNanos();
	}

	/** Takes {@code size} pending items, across tenants by their weights. */
	Cut<I, O> cut(int size) {
		List<BatchItem<I, O>> batch = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			batch.add(Objects.requireNonNull(this.pending.poll()).item());
		}
		return new Cut<>(batch);
	}

	/**
	 * Fails every pending item.
	 * @return how many were failed
	 */
	int failPending(RuntimeException reason) {
		int failed = this.pending.size();
		for (FairQueue.Entry<BatchItem<I, O>> entry = this.pending.poll(); entry != null; entry = this.pending.poll()) {
			entry.item().future().completeExceptionally(reason);
		}
		return failed;
	}

	/**
	 * A batch cut and not yet completed; compared by identity.
	 */
	static final class Cut<I, O> {

		final List<BatchItem<I, O>> items;

		Cut(List<BatchItem<I, O>> items) {
			this.items = items;
		}

	}

}
