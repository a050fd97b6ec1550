package dev.offload.internal.lending;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Who borrows from a {@link LendingPool}, as the pool needs to know: the name its waiters
 * are queued fairly under, its weight, the most items it holds at once, and the counters
 * its statistics are read from (shared by the tenants counted together as "other").
 */
public final class LendingTenant {

	private final String name;

	private final int weight;

	private final int maxItems;

	private final Counters counters;

	/**
	 * Creates a tenant with counters of its own.
	 * @param name the name its waiters queue under
	 * @param weight its weight, at least 1
	 * @param maxItems the most items it holds at once, or 0 for no limit
	 */
	public LendingTenant(String name, int weight, int maxItems) {
		this(name, weight, maxItems, new Counters());
	}

	/**
	 * Creates a tenant that counts into shared counters; it must have no limit, since the
	 * counters are not its own.
	 * @param name the name its waiters queue under
	 * @param weight its weight, at least 1
	 * @param counters the counters
	 */
	public LendingTenant(String name, int weight, Counters counters) {
		this(name, weight, 0, counters);
	}

	private LendingTenant(String name, int weight, int maxItems, Counters counters) {
		this.name = name;
		this.weight = Math.max(1, weight);
		this.maxItems = maxItems;
		this.counters = counters;
	}

	/**
	 * Returns the tenant's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the tenant's weight.
	 * @return the weight
	 */
	public int weight() {
		return this.weight;
	}

	/**
	 * Returns the most items the tenant holds at once.
	 * @return the limit, 0 for none
	 */
	public int maxItems() {
		return this.maxItems;
	}

	/**
	 * Returns the tenant's counters.
	 * @return the counters
	 */
	public Counters counters() {
		return this.counters;
	}

	/** Counts one item more held, if under the limit. */
	boolean tryHold() {
		AtomicInteger inUse = this.counters.inUse;
		if (this.maxItems <= 0) {
			inUse.incrementAndGet();
			return true;
		}
		int held = inUse.get();
		while (held < this.maxItems) {
			int found = inUse.compareAndExchange(held, held + 1);
			if (found == held) {
				return true;
			}
			held = found;
		}
		return false;
	}

	/** Tells whether the tenant may hold one item more. */
	boolean underLimit() {
		return this.maxItems <= 0 || this.counters.inUse.get() < this.maxItems;
	}

	void unhold() {
		this.counters.inUse.decrementAndGet();
	}

	@Override
	public String toString() {
		return "tenant '" + this.name + "'";
	}

	/**
	 * What a tenant's statistics are read from: items held now, borrows and their waits,
	 * borrowers waiting now.
	 */
	public static final class Counters {

		final AtomicInteger inUse = new AtomicInteger();

		final AtomicInteger waiting = new AtomicInteger();

		final LongAdder borrows = new LongAdder();

		final LongAdder waitNanos = new LongAdder();

		/**
		 * Returns the items held now.
		 * @return the number
		 */
		public int inUse() {
			return this.inUse.get();
		}

		/**
		 * Returns the borrowers waiting now.
		 * @return the number
		 */
		public int waiting() {
			return this.waiting.get();
		}

		/**
		 * Returns the borrows so far.
		 * @return the number
		 */
		public long borrows() {
			return this.borrows.sum();
		}

		/**
		 * Returns how long the borrows so far waited in all.
		 * @return the time in nanoseconds
		 */
		public long waitNanos() {
			return this.waitNanos.sum();
		}

	}

}
