package dev.offload.internal.memory;

import java.util.TreeMap;
import java.util.concurrent.locks.Condition;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.FairQueue;

/**
 * The callers waiting for a {@link MemoryBudget}, and their admission: per priority
 * class, high priority first, within a class across tenants by weighted fair queuing
 * ({@link FairQueue}), each held to its tenant's limit. Used under the budget's lock.
 */
final class MemoryWaiters {

	/** The queue name of waiters without a tenant. */
	private static final String DEFAULT_TENANT = "default";

	/** Waiters per priority class: high priority, then normal. */
	private final FairQueue<Waiter>[] queues;

	/**
	 * How many waiters wait for each size, so that a pass that cannot admit even the
	 * smallest ends at once: without it, every arrival and every release re-sorted all
	 * waiters, quadratic in their number.
	 */
	private final TreeMap<Long, Integer> sizes = new TreeMap<>();

	@SuppressWarnings("unchecked")
	MemoryWaiters() {
		this.queues = new FairQueue[2];
		for (int i = 0; i < this.queues.length; i++) {
			this.queues[i] = new FairQueue<>();
		}
	}

	/** Queues a waiter in its priority class, under its tenant's name and weight. */
	FairQueue.Entry<Waiter> add(Waiter waiter, boolean highPriority) {
		MemoryTenant tenant = waiter.tenant;
		this.sizes.merge(waiter.bytes, 1, Integer::sum);
		return this.queues[queue(highPriority)].add((tenant != null) ? tenant.name() : DEFAULT_TENANT,
				(tenant != null) ? tenant.weight() : 1, waiter);
	}

	/** Removes a waiter that gave up. */
	void remove(FairQueue.Entry<Waiter> entry, boolean highPriority) {
		if (this.queues[queue(highPriority)].remove(entry)) {
			forget(entry.item().bytes);
		}
	}

	/** Drops a waiter's size from {@link #sizes}: it was admitted or gave up. */
	private void forget(long bytes) {
		this.sizes.computeIfPresent(bytes, (size, count) -> (count > 1) ? count - 1 : null);
	}

	/** Whether the budget may admit the smallest waiter now; none can if it may not. */
	private boolean mayAdmitAny(MemoryBudget budget) {
		return !this.sizes.isEmpty() && budget.mayAdmit(this.sizes.firstKey());
	}

	/**
	 * Admits the waiters that fit the budget, highest class first, within a class in the
	 * fair order across tenants (first fit: a waiter that does not fit, or whose tenant
	 * is at its limit, does not hold back the ones after it). A class that still has a
	 * waiter the budget could not admit holds the lower classes back; one whose waiters
	 * wait only for their tenants' limits does not.
	 */
	void admit(MemoryBudget budget) {
		for (FairQueue<Waiter> queue : this.queues) {
			if (!mayAdmitAny(budget)) {
				return;
			}
			if (queue.isEmpty()) {
				continue;
			}
			FairQueue.ServiceOrder<Waiter> order = queue.serviceOrder();
			boolean budgetHoldsOneBack = false;
			for (FairQueue.Entry<Waiter> entry = order.next(); entry != null; entry = order.next()) {
				Waiter waiter = entry.item();
				MemoryTenant tenant = waiter.tenant;
				if (tenant != null && !tenant.tryHold(waiter.bytes)) {
					continue;
				}
				if (budget.tryAcquire(waiter.bytes)) {
					waiter.admitted = true;
					order.take();
					forget(waiter.bytes);
					waiter.signal.signal();
					if (!mayAdmitAny(budget)) {
						return;
					}
				}
				else {
					budgetHoldsOneBack = true;
					if (tenant != null) {
						tenant.unhold(waiter.bytes);
					}
				}
			}
			if (budgetHoldsOneBack) {
				// A higher class waits for the budget: the lower classes wait behind it.
				// One held back only by its own tenant's limit holds back nobody else.
				return;
			}
		}
	}

	/** The queue of a priority class: high priority first. */
	private static int queue(boolean highPriority) {
		return highPriority ? 0 : 1;
	}

	/** A caller waiting for bytes of the budget. */
	static final class Waiter {

		final long bytes;

		final Condition signal;

		final @Nullable MemoryTenant tenant;

		boolean admitted;

		Waiter(long bytes, Condition signal, @Nullable MemoryTenant tenant) {
			this.bytes = bytes;
			this.signal = signal;
			this.tenant = tenant;
		}

	}

}
