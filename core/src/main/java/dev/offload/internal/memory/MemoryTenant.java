package dev.offload.internal.memory;

import java.util.concurrent.atomic.AtomicLong;

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

	/**
	 * Creates a tenant.
	 * @param name the name its waiters queue under
	 * @param weight its weight, at least 1
	 * @param maxBytes the most bytes it holds at once, or 0 for no limit
	 */
	public MemoryTenant(String name, int weight, long maxBytes) {
		this.name = name;
		this.weight = Math.max(1, weight);
		this.maxBytes = maxBytes;
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

	@Override
	public String toString() {
		return "tenant '" + this.name + "'";
	}

}
