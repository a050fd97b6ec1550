package dev.offload;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
 * whole budget fails at once.
 */
final class MemoryBudget {

	private final int deviceId;

	private final long budgetBytes;

	private final AtomicLong used = new AtomicLong();

	private final AtomicLong peak = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	private final LongAdder waitTimeouts = new LongAdder();

	private final ReentrantLock lock = new ReentrantLock();

	/** Waiters per priority class, {@link StreamPriority#HIGH} first; under the lock. */
	private final ArrayDeque<Waiter>[] waiters;

	@SuppressWarnings("unchecked")
	MemoryBudget(int deviceId, long budgetBytes) {
		this.deviceId = deviceId;
		this.budgetBytes = budgetBytes;
		this.waiters = new ArrayDeque[StreamPriority.values().length];
		for (int i = 0; i < this.waiters.length; i++) {
			this.waiters[i] = new ArrayDeque<>();
		}
	}

	long budgetBytes() {
		return this.budgetBytes;
	}

	long usedBytes() {
		return this.used.get();
	}

	long peakBytes() {
		return this.peak.get();
	}

	int waiting() {
		return this.waiting.get();
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
	void acquire(long bytes, StreamPriority priority, long timeoutNanos, SessionDeadline deadline) {
		if (bytes <= 0) {
			return;
		}
		if (bytes > this.budgetBytes) {
			throw new MemoryBudgetExceededException(this.deviceId, this.budgetBytes, this.used.get(), bytes,
					Duration.ZERO);
		}
		if (this.waiting.get() == 0 && tryAcquire(bytes)) {
			return;
		}
		acquireSlow(bytes, priority, timeoutNanos, deadline);
	}

	/**
	 * Acquires {@code bytes} if they fit now.
	 */
	boolean tryAcquire(long bytes) {
		while (true) {
			long current = this.used.get();
			long next = current + bytes;
			if (next > this.budgetBytes) {
				return false;
			}
			if (this.used.compareAndSet(current, next)) {
				if (next > this.peak.get()) {
					this.peak.accumulateAndGet(next, Math::max);
				}
				return true;
			}
		}
	}

	void release(long bytes) {
		if (bytes <= 0) {
			return;
		}
		this.used.addAndGet(-bytes);
		if (this.waiting.get() > 0) {
			this.lock.lock();
			try {
				admitWaiters();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void acquireSlow(long bytes, StreamPriority priority, long timeoutNanos, SessionDeadline deadline) {
		long start = System.nanoTime();
		this.lock.lock();
		try {
			Waiter waiter = new Waiter(bytes, this.lock.newCondition());
			this.waiters[slot(priority)].addLast(waiter);
			this.waiting.incrementAndGet();
			try {
				admitWaiters();
				while (!waiter.admitted) {
					long remaining = timeoutNanos - (System.nanoTime() - start);
					if (deadline != null) {
						remaining = Math.min(remaining, deadline.remainingNanos());
					}
					if (remaining <= 0) {
						this.waitTimeouts.increment();
						throw new MemoryBudgetExceededException(this.deviceId, this.budgetBytes, this.used.get(), bytes,
								Duration.ofNanos(System.nanoTime() - start));
					}
					waiter.signal.awaitNanos(remaining);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (waiter.admitted) {
					this.used.addAndGet(-bytes);
				}
				throw new OffloadException("Interrupted while waiting for " + bytes + " bytes of device "
						+ this.deviceId + "'s memory budget", ex);
			}
			finally {
				if (!waiter.admitted) {
					this.waiters[slot(priority)].remove(waiter);
				}
				this.waiting.decrementAndGet();
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
