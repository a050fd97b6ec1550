package dev.offload.internal.lending;

import java.util.Arrays;
import java.util.List;

/**
 * The items of one class of a {@link LendingPool}.
 */
final class ItemClass {

	/**
	 * Every item of the class that is not destroyed; replaced, never changed, on growth
	 * and discard.
	 */
	volatile Lendable[] items = new Lendable[0];

	/** The size the class grew to; guarded by the pool's lock. */
	int capacity;

	/** Whether items are being made in the background; guarded by the lock. */
	volatile boolean growing;

	/**
	 * The borrows of the class's destroyed items; changes with {@link #items}, under this
	 * monitor.
	 */
	long retiredBorrows;

	/** The idle items' hints, where borrowers look for one. */
	final IdleHints hints = new IdleHints();

	/** Items destroyed since the hints were last swept; under this monitor. */
	private int retiredSinceSweep;

	/** The most items the class holds, or {@link Integer#MAX_VALUE}. */
	final int limit;

	/** How long a borrow of the class waits. */
	final long borrowTimeoutNanos;

	ItemClass(int limit, long borrowTimeoutNanos) {
		this.limit = limit;
		this.borrowTimeoutNanos = borrowTimeoutNanos;
	}

	synchronized void add(List<? extends Lendable> made) {
		Lendable[] grown = Arrays.copyOf(this.items, this.items.length + made.size());
		for (int i = 0; i < made.size(); i++) {
			grown[this.items.length + i] = made.get(i);
		}
		this.items = grown;
		for (Lendable item : made) {
			this.hints.offer(item);
		}
	}

	synchronized void remove(Lendable item) {
		this.items = Arrays.stream(this.items).filter((each) -> each != item).toArray(Lendable[]::new);
		this.retiredBorrows += item.borrows;
		// Once as many items were destroyed as the class holds: the hints never name more
		// destroyed items than about the class's size, at a cost of one pass over them
		// per that many destructions.
		if (++this.retiredSinceSweep > this.items.length) {
			this.retiredSinceSweep = 0;
			this.hints.sweep();
		}
	}

}
