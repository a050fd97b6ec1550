package dev.offload;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The device memory that sessions and application-owned buffers may hold at once, and the
 * queue of those waiting for it: a counting semaphore of bytes with priorities and
 * deadlines.
 * <p>
 * Invariant: {@code used} never exceeds {@code budget}; every byte acquired is released
 * exactly once (a session releases its reservation when it ends, an application-owned
 * buffer when it is closed). The fast path is one compare-and-set on {@code used}, taken
 * only while nobody waits; with waiters, arrivals queue so that a waiter is not overtaken
 * for ever. Waiters are served {@link StreamPriority#HIGH} first, then in arrival order,
 * first fit within a class (a small request is not held behind a large one that does not
 * fit yet); a waiter of a lower class is served only when no higher one waits. A wait
 * ends at the session's deadline or the borrow timeout of its priority's lane, whichever
 * comes first, with a {@link MemoryBudgetExceededException}; a request larger than the
 * whole budget fails at once. A large request (more than an eighth of the budget) is
 * admitted only while it leaves an eighth to the others, or when nothing is in use, so
 * that a few large sessions cannot make every small one wait for them (the small ones'
 * lane, in bytes).
 * <p>
 * Under many threads the cost is moving cache lines between cores, so the bytes in use
 * (written by every admission and release), the peak and the number of waiters (read by
 * every one, written seldom) lie on cache lines of their own: a write to the bytes in use
 * does not make every thread miss on the two others. A failed compare-and-set goes on
 * from the value it found rather than reading the line again.
 */
final class MemoryBudget {

	/**
	 * Slots of {@link #counters}: 16 longs (128 bytes, a cache line and the one the
	 * processor prefetches with it) apart, and from the array's ends.
	 */
	private static final int USED = 16;

	private static final int PEAK = 32;

	private static final int WAITING = 48;

	private final int deviceId;

	private final long budgetBytes;

	/** The share of the budget a large request leaves to the others: an eighth. */
	private final long smallReserveBytes;

	/** The bytes in use, their peak and the number of waiters, each on its own line. */
	private final AtomicLongArray counters = new AtomicLongArray(WAITING + 16);

	private final LongAdder waitTimeouts = new LongAdder();

	private final ReentrantLock lock = new ReentrantLock();

	/** Waiters per priority class, {@link StreamPriority#HIGH} first; under the lock. */
	private final ArrayDeque<Waiter>[] waiters;

	@SuppressWarnings("unchecked")
	MemoryBudget(int deviceId, long budgetBytes) {
		this.deviceId = deviceId;
		this.budgetBytes = budgetBytes;
		this.smallReserveBytes = budgetBytes / 8;
		this.waiters = new ArrayDeque[StreamPriority.values().length];
		for (int i = 0; i < this.waiters.length; i++) {
			this.waiters[i] = new ArrayDeque<>();
		}
	}

	long budgetBytes() {
		return this.budgetBytes;
	}

	long usedBytes() {
		return this.counters.get(USED);
	}

	long peakBytes() {
		return this.counters.get(PEAK);
	}

	int waiting() {
		return (int) this.counters.get(WAITING);
	}

	long waitTimeouts() {
		return this.waitTimeouts.sum();
	}

	/**
	 * Acquires {@code bytes}, waiting at most {@code timeoutNanos} and until the
	 * deadline.
	 * @throws MemoryBudgetExceededException if the request is larger than the budget, or
	 * its wait ended
	 */
	void acquire(long bytes, StreamPriority priority, long timeoutNanos, @Nullable SessionDeadline deadline) {
		if (bytes <= 0) {
			return;
		}
		if (bytes > this.budgetBytes) {
			throw new MemoryBudgetExceededException(this.deviceId, this.budgetBytes, usedBytes(), bytes, Duration.ZERO);
		}
		if (waiting() == 0 && tryAcquire(bytes)) {
			return;
		}
		acquireSlow(bytes, priority, timeoutNanos, deadline);
	}

	/**
	 * Acquires {@code bytes} if they fit now. A large request (more than an eighth of the
	 * budget) fits only if it leaves an eighth of the budget to the others, or if nothing
	 * is in use: large sessions cannot take the whole budget and make every small one
	 * wait for them.
	 */
	boolean tryAcquire(long bytes) {
		long limit = (bytes > this.smallReserveBytes) ? this.budgetBytes - this.smallReserveBytes : this.budgetBytes;
		long current = this.counters.get(USED);
		while (true) {
			long next = current + bytes;
			if (next > limit && (current > 0 || next > this.budgetBytes)) {
				return false;
			}
			long found = this.counters.compareAndExchange(USED, current, next);
			if (found == current) {
				if (next > this.counters.get(PEAK)) {
					this.counters.accumulateAndGet(PEAK, next, Math::max);
				}
				return true;
			}
			current = found;
		}
	}

	void release(long bytes) {
		if (bytes <= 0) {
			return;
		}
		this.counters.addAndGet(USED, -bytes);
		if (waiting() > 0) {
			this.lock.lock();
			try {
				admitWaiters();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void acquireSlow(long bytes, StreamPriority priority, long timeoutNanos,
			@Nullable SessionDeadline deadline) {
		long start = System.nanoTime();
		this.lock.lock();
		try {
			Waiter waiter = new Waiter(bytes, this.lock.newCondition());
			this.waiters[slot(priority)].addLast(waiter);
			this.counters.incrementAndGet(WAITING);
			try {
				admitWaiters();
				while (!waiter.admitted) {
					long remaining = timeoutNanos - (System.nanoTime() - start);
					if (deadline != null) {
						remaining = Math.min(remaining, deadline.remainingNanos());
					}
					if (remaining <= 0) {
						this.waitTimeouts.increment();
						throw new MemoryBudgetExceededException(this.deviceId, this.budgetBytes, usedBytes(), bytes,
								Duration.ofNanos(System.nanoTime() - start));
					}
					waiter.signal.awaitNanos(remaining);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (waiter.admitted) {
					this.counters.addAndGet(USED, -bytes);
				}
				throw new OffloadException("Interrupted while waiting for " + bytes + " bytes of device "
						+ this.deviceId + "'s memory budget", ex);
			}
			finally {
				if (!waiter.admitted) {
					this.waiters[slot(priority)].remove(waiter);
				}
				this.counters.decrementAndGet(WAITING);
				// A waiter that gave up may have been the one that held others back.
				admitWaiters();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Admits the waiters that fit, highest class first; called under the lock.
	 */
	private void admitWaiters() {
		for (ArrayDeque<Waiter> queue : this.waiters) {
			var iterator = queue.iterator();
			while (iterator.hasNext()) {
				Waiter waiter = iterator.next();
				if (tryAcquire(waiter.bytes)) {
					waiter.admitted = true;
					iterator.remove();
					waiter.signal.signal();
				}
			}
			if (!queue.isEmpty()) {
				// A higher class still waits: the lower classes wait behind it.
				return;
			}
		}
	}

	/** The queue of a priority class: {@link StreamPriority#HIGH} first. */
	private int slot(StreamPriority priority) {
		return this.waiters.length - 1 - priority.ordinal();
	}

	private static final class Waiter {

		final long bytes;

		final Condition signal;

		boolean admitted;

		Waiter(long bytes, Condition signal) {
			this.bytes = bytes;
			this.signal = signal;
		}

	}

}
