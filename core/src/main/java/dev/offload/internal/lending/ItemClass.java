package dev.offload.internal.lending;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

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
		remove(List.of(item));
	}

	/**
	 * Takes destroyed items out of the class in one pass over its items, so that a
	 * shutdown's drain of thousands costs no more than one copy of the array.
	 */
	synchronized void remove(List<? extends Lendable> gone) {
		Set<Lendable> removed = Collections.newSetFromMap(new IdentityHashMap<>());
		removed.addAll(gone);
		List<Lendable> kept = new ArrayList<>(this.items.length);
		for (Lendable each : this.items) {
			if (!removed.contains(each)) {
				kept.add(each);
			}
		}
		this.items = kept.toArray(new Lendable[0]);
		for (Lendable item : gone) {
			this.retiredBorrows += item.borrows;
		}
		// Once as many items were destroyed as the class holds: the hints never name more
		// destroyed items than about the class's size, at a cost of one pass over them
		// per that many destructions.
		this.retiredSinceSweep += gone.size();
		if (this.retiredSinceSweep > this.items.length) {
			this.retiredSinceSweep = 0;
			this.hints.sweep();
		}
	}

}
