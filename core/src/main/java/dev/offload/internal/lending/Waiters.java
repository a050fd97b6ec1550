package dev.offload.internal.lending;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.FairQueue;

/**
 * The borrowers of a {@link LendingPool} that wait, and how an item reaches them: a
 * borrower that finds no item and cannot grow the pool (or whose tenant holds its limit)
 * queues in its class's queue of waiters for at most its class's borrow timeout. The
 * queue serves tenants by weighted fair queuing ({@link FairQueue}) and each tenant's
 * waiters first come, first served; a tenant at its limit is passed over. A release while
 * borrowers wait hands the item to the next waiter of its class and wakes that one alone;
 * with no waiter of its class, it wakes the oldest waiter of another class, which may
 * replace an idle item by one of its own. A discard wakes one waiter to replace the item.
 * The queues are guarded by the pool's lock.
 *
 * @param <E> the items
 */
final class Waiters<E extends Lendable> {

	private final LendingPool<E> pool;

	/** The borrowers waiting in each class; guarded by the pool's lock. */
	private final FairQueue<Waiter>[] queues;

	final AtomicInteger waiting = new AtomicInteger();

	/** How often a waiting borrower woke up: for tests. */
	final AtomicLong wakeUps = new AtomicLong();

	final AtomicLong timeouts = new AtomicLong();

	/**
	 * The borrows waiting now, in the order they began to wait (the oldest first), for
	 * the oldest wait: a list linked through its records, so that a borrow leaves it in
	 * constant time however many wait (a queue searched on removal made every one of
	 * thousands of waiters scan the others while holding the lock). Changed under a lock
	 * of its own, held for a few instructions, so that a borrow counts as waiting while
	 * it waits for the pool's lock too (behind a growth, say); its head read without it.
	 */
	private volatile @Nullable WaitRecord oldestWaiting;

	/** The newest record of {@link #oldestWaiting}'s list; under {@link #waitsLock}. */
	private @Nullable WaitRecord newestWaiting;

	private final ReentrantLock waitsLock = new ReentrantLock();

	@SuppressWarnings("unchecked")
	Waiters(LendingPool<E> pool, int classes) {
		this.pool = pool;
		this.queues = new FairQueue[classes];
		for (int i = 0; i < classes; i++) {
			this.queues[i] = new FairQueue<>();
		}
	}

	/**
	 * Returns how long the borrower that has waited longest has waited so far.
	 * @return the time in nanoseconds, 0 when nobody waits
	 */
	long oldestWaitNanos() {
		WaitRecord oldest = this.oldestWaiting;
		return (oldest != null) ? Math.max(0, System.nanoTime() - oldest.start) : 0;
	}

	/**
	 * Lends an item to a borrower that found none idle: grows the pool, or waits for a
	 * release, a growth or a discard, up to its class's borrow timeout and its deadline.
	 * Returns with the item counted as held by the tenant.
	 */
	@SuppressWarnings("unchecked")
	E borrowSlow(int classIndex, long start, boolean hasDeadline, long deadlineNanos, LendingTenant tenant) {
		LendingPool<E> pool = this.pool;
		long timeoutNanos = pool.classes[classIndex].borrowTimeoutNanos;
		this.waiting.incrementAndGet();
		tenant.counters().waiting.incrementAndGet();
		FairQueue<Waiter> queue = this.queues[classIndex];
		FairQueue.Entry<Waiter> entry = null;
		WaitRecord record = startWaiting(start);
		pool.lock.lock();
		try {
			while (true) {
				if (entry != null && entry.item().item != null) {
					return (E) entry.item().item;
				}
				pool.checkLending();
				if (tenant.tryHold()) {
					E item = pool.takeIdle(classIndex);
					if (item != null) {
						return item;
					}
					boolean grew;
					try {
						grew = pool.growth.grow(classIndex);
					}
					finally {
						// Growth that failed (the driver refused a stream) costs the
						// tenant nothing.
						tenant.unhold();
					}
					if (grew) {
						continue;
					}
				}
				long remaining = timeoutNanos - (System.nanoTime() - start);
				if (hasDeadline && deadlineNanos - System.nanoTime() < remaining) {
					remaining = deadlineNanos - System.nanoTime();
					if (remaining <= 0) {
						throw pool.items.deadlinePassed(classIndex, System.nanoTime() - start);
					}
				}
				if (remaining <= 0) {
					this.timeouts.incrementAndGet();
					// This borrower still counts as waiting while the exception reports
					// the pool's state.
					throw pool.items.timedOut(classIndex, System.nanoTime() - start);
				}
				if (entry == null) {
					entry = queue.add(tenant.name(), tenant.weight(), new Waiter(pool.lock.newCondition(), tenant));
				}
				else if (!entry.isQueued()) {
					// Woken to try again and found nothing: it keeps its place.
					queue.requeue(entry);
				}
				entry.item().wake.awaitNanos(remaining);
				this.wakeUps.incrementAndGet();
			}
		}
		catch (InterruptedException ex) {
			if (entry != null && entry.item().item != null) {
				// Handed an item as the interrupt came: keep it, and the interrupt.
				Thread.currentThread().interrupt();
				return (E) entry.item().item;
			}
			Thread.currentThread().interrupt();
			throw pool.items.interrupted(ex);
		}
		finally {
			if (entry != null) {
				queue.remove(entry);
			}
			this.waiting.decrementAndGet();
			tenant.counters().waiting.decrementAndGet();
			pool.lock.unlock();
			stopWaiting(record);
		}
	}

	/** Appends a waiting borrow to the list of waits. */
	private WaitRecord startWaiting(long start) {
		WaitRecord record = new WaitRecord(start);
		this.waitsLock.lock();
		try {
			WaitRecord newest = this.newestWaiting;
			if (newest == null) {
				this.oldestWaiting = record;
			}
			else {
				record.older = newest;
				newest.newer = record;
			}
			this.newestWaiting = record;
		}
		finally {
			this.waitsLock.unlock();
		}
		return record;
	}

	/** Unlinks a waiting borrow from the list of waits. */
	private void stopWaiting(WaitRecord record) {
		this.waitsLock.lock();
		try {
			WaitRecord older = record.older;
			WaitRecord newer = record.newer;
			if (older == null) {
				this.oldestWaiting = newer;
			}
			else {
				older.newer = newer;
			}
			if (newer == null) {
				this.newestWaiting = older;
			}
			else {
				newer.older = older;
			}
			record.older = null;
			record.newer = null;
		}
		finally {
			this.waitsLock.unlock();
		}
	}

	/**
	 * Wakes the oldest waiter of a class to take an item just made; while holding the
	 * lock.
	 */
	void wakeOldestOf(int classIndex) {
		FairQueue.Entry<Waiter> first = this.queues[classIndex].poll(Waiter::mayHold);
		if (first != null) {
			first.item().wake.signal();
		}
	}

	/**
	 * Gives an item just made idle to the next waiter of its class whose tenant is under
	 * its limit, or wakes the oldest waiter of another class, which may replace an idle
	 * item by one of its own.
	 * @return whether the item was handed to a waiter
	 */
	boolean handOff(Lendable item) {
		this.pool.lock.lock();
		try {
			FairQueue<Waiter> queue = this.queues[item.classIndex];
			FairQueue.Entry<Waiter> next = queue.poll(Waiter::mayHold);
			if (next != null) {
				Waiter first = next.item();
				if (!first.tenant.tryHold()) {
					// Its tenant took its last item meanwhile, on the fast path.
					queue.requeue(next);
					return false;
				}
				if (item.compareAndSetState(Lendable.IDLE, Lendable.IN_USE)) {
					first.item = item;
					first.wake.signal();
					return true;
				}
				// Another borrower took it: this waiter tries again.
				first.tenant.unhold();
				first.wake.signal();
				return false;
			}
			wakeOldest();
			return false;
		}
		finally {
			this.pool.lock.unlock();
		}
	}

	/**
	 * Wakes the waiter that has waited longest, of any class, to try again; while holding
	 * the lock.
	 */
	void wakeOldest() {
		FairQueue<Waiter> from = null;
		Waiter oldest = null;
		for (FairQueue<Waiter> queue : this.queues) {
			FairQueue.Entry<Waiter> first = queue.peek(Waiter::mayHold);
			if (first != null && (oldest == null || first.item().since - oldest.since < 0)) {
				from = queue;
				oldest = first.item();
			}
		}
		FairQueue.Entry<Waiter> next = (from != null) ? from.poll(Waiter::mayHold) : null;
		if (next != null) {
			next.item().wake.signal();
		}
	}

	/** Wakes every waiter, to check again whether the pool lends; under the lock. */
	void wakeAll() {
		for (FairQueue<Waiter> queue : this.queues) {
			FairQueue.Entry<Waiter> waiter;
			while ((waiter = queue.poll()) != null) {
				waiter.item().wake.signal();
			}
		}
	}

	/** A borrow waiting now, linked to those that began to wait before and after it. */
	private static final class WaitRecord {

		final long start;

		@Nullable WaitRecord older;

		@Nullable WaitRecord newer;

		WaitRecord(long start) {
			this.start = start;
		}

	}

	/**
	 * A borrower waiting for an item; guarded by the pool's lock.
	 */
	private static final class Waiter {

		final Condition wake;

		final long since = System.nanoTime();

		final LendingTenant tenant;

		/** The item a release handed to it, held for its tenant. */
		@Nullable Lendable item;

		Waiter(Condition wake, LendingTenant tenant) {
			this.wake = wake;
			this.tenant = tenant;
		}

		boolean mayHold() {
			return this.tenant.underLimit();
		}

	}

}
