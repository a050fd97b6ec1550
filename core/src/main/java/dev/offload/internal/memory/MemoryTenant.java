package dev.offload.internal.memory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A tenant as a device's memory budget sees it: the name its waiters queue fairly under,
 * its weight, the most budgeted bytes it holds at once, and the bytes it holds now. Not
 * API.
 */
public final class MemoryTenant {

	private final String name;

	private final int weight;

	private final long maxBytes;

	private final AtomicLong held = new AtomicLong();

	private final Counters counters;

	/**
	 * Creates a tenant with counters of its own.
	 * @param name the name its waiters queue under
	 * @param weight its weight, at least 1
	 * @param maxBytes the most bytes it holds at once, or 0 for no limit
	 */
	public MemoryTenant(String name, int weight, long maxBytes) {
		this(name, weight, maxBytes, new Counters());
	}

	/**
	 * Creates a tenant counted in shared counters (the tenants past the tracked bound,
	 * counted together).
	 * @param name the name its waiters queue under
	 * @param weight its weight, at least 1
	 * @param maxBytes the most bytes it holds at once, or 0 for no limit
	 * @param counters where its waits and refusals are counted
	 */
	public MemoryTenant(String name, int weight, long maxBytes, Counters counters) {
		this.name = name;
		this.weight = Math.max(1, weight);
		this.maxBytes = maxBytes;
		this.counters = counters;
	}

	/**
	 * Returns the counters of the tenant's waits and refusals.
	 * @return the counters, perhaps shared with other tenants
	 */
	public Counters counters() {
		return this.counters;
	}

	/**
	 * Returns the tenant's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the bytes the tenant holds now, counted only for a tenant with a limit.
	 * @return the bytes, 0 without a limit
	 */
	public long heldBytes() {
		return this.held.get();
	}

	/**
	 * Returns the most bytes the tenant holds at once.
	 * @return the limit, 0 for none
	 */
	public long maxBytes() {
		return this.maxBytes;
	}

	int weight() {
		return this.weight;
	}

	/** Counts {@code bytes} more held, if they stay within the limit. */
	boolean tryHold(long bytes) {
		if (this.maxBytes <= 0) {
			// Without a limit nothing is counted: no shared line on the budget's fast
			// path.
			return true;
		}
		long current = this.held.get();
		while (current + bytes <= this.maxBytes) {
			long found = this.held.compareAndExchange(current, current + bytes);
			if (found == current) {
				return true;
			}
			current = found;
		}
		return false;
	}

	void unhold(long bytes) {
		if (this.maxBytes > 0) {
			this.held.addAndGet(-bytes);
		}
	}

	/**
	 * A tenant's waits for the budget and the requests it refused: counted on the slow
	 * path only, so an admission that does not wait writes none of them.
	 */
	public static final class Counters {

		private final LongAdder waits = new LongAdder();

		private final LongAdder waitNanos = new LongAdder();

		private final LongAdder refusals = new LongAdder();

		/**
		 * Returns the requests that waited for the budget.
		 * @return the count
		 */
		public long waits() {
			return this.waits.sum();
		}

		/**
		 * Returns how long those requests waited in all.
		 * @return the nanoseconds
		 */
		public long waitNanos() {
			return this.waitNanos.sum();
		}

		/**
		 * Returns the requests the budget or the tenant's limit refused.
		 * @return the count
		 */
		public long refusals() {
			return this.refusals.sum();
		}

		void waited(long nanos) {
			this.waits.increment();
			this.waitNanos.add(nanos);
		}

		void refused() {
			this.refusals.increment();
		}

	}

	@Override
	public String toString() {
		return "tenant '" + this.name + "'";
	}

}
