package dev.offload.internal.lending;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The lending algorithm of a pool of costly items in priority classes (the shape of
 * HikariCP's {@code ConcurrentBag}), apart from what the items are, and the door of the
 * lending room: {@link LendingItems} makes and destroys them, says whether their source
 * can still lend and builds the exceptions a borrower sees. The stream pool lends a
 * device's streams through it; the benchmarks measure it over items that cost nothing.
 * <p>
 * How it lends: every item is in its class's shared array, and its state
 * ({@link Lendable#IDLE}, {@link Lendable#IN_USE}, {@link Lendable#DISCARDED}) changes
 * only by compare-and-set, so an item is never lent twice. A thread first tries the item
 * it released last (no contention, warm caches), then takes one from its class's
 * {@code IdleHints}, a lock-free stack with a hint for every idle item, in amortized
 * constant time however many of the class's items are lent. One shared counter changes on
 * the fast path, the items lent now (on a cache line of its own), so that the peak in use
 * is exact; each item counts its own borrows, and idle and lent items are counted from
 * their states when asked. The lock serves growth, waiting and shutdown only; a release
 * takes it only when a borrower waits.
 * <p>
 * How it grows is {@code Growth}'s part, how it waits and hands items to waiters
 * {@code Waiters}'.
 * <p>
 * Invariant: {@code created - destroyed == idle + inUse}.
 *
 * @param <E> the items
 */
public final class LendingPool<E extends Lendable> {

	final LendingItems<E> items;

	final Logger logger;

	final String owner;

	final int initialSize;

	final int maxSize;

	final ItemClass[] classes;

	final Growth<E> growth;

	final Waiters<E> waiters;

	private final ThreadLocal<Lendable> lastReleased = new ThreadLocal<>();

	/** Guards growth, the waiters' queues and shutdown. */
	final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/**
	 * The items lent now, in the middle of 32 ints so that no other field shares its
	 * cache line; counted from the moment a borrow takes an item to the moment its
	 * release begins, so it never exceeds the items lent.
	 */
	private final AtomicIntegerArray lentCounter = new AtomicIntegerArray(2 * LendingTuning.LENT_SLOT);

	private volatile int peakInUse;

	private final AtomicLong discarded = new AtomicLong();

	private volatile boolean closed;

	/** The tenant of borrows that name none. */
	private final LendingTenant defaultTenant = new LendingTenant("default", 1, 0);

	/**
	 * Creates an empty pool.
	 * @param items makes, destroys and describes the items
	 * @param initialSize the items a class's first borrow makes
	 * @param maxSize the most items of all classes together, 0 or less for no bound
	 * @param limits the most items of each class, {@link Integer#MAX_VALUE} for none; one
	 * per class
	 * @param borrowTimeoutNanos how long a borrow of each class waits at most; one per
	 * class
	 * @param logger where growth and failures are logged
	 * @param owner what the pool belongs to, for the log (for example {@code "device 0"})
	 */
	public LendingPool(LendingItems<E> items, int initialSize, int maxSize, int[] limits, long[] borrowTimeoutNanos,
			Logger logger, String owner) {
		if (limits.length != borrowTimeoutNanos.length) {
			throw new IllegalArgumentException("One limit and one borrow timeout per class");
		}
		this.items = items;
		this.initialSize = initialSize;
		this.maxSize = maxSize;
		this.logger = logger;
		this.owner = owner;
		this.classes = new ItemClass[limits.length];
		for (int i = 0; i < limits.length; i++) {
			this.classes[i] = new ItemClass(limits[i], borrowTimeoutNanos[i]);
		}
		this.growth = new Growth<>(this);
		this.waiters = new Waiters<>(this, limits.length);
	}

	boolean isBounded() {
		return this.maxSize > 0;
	}

	/**
	 * Returns how long a borrower of a class waits at most.
	 * @param classIndex the class
	 * @return the time in nanoseconds
	 */
	public long borrowTimeoutNanos(int classIndex) {
		return this.classes[classIndex].borrowTimeoutNanos;
	}

	/**
	 * Tells whether the pool is shut down.
	 * @return {@code true} once {@link #shutdown(long)} began
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Returns the items lent now, counted from their states.
	 * @return the number in use
	 */
	public int inUse() {
		int count = 0;
		for (ItemClass state : this.classes) {
			for (Lendable item : state.items) {
				count += (item.state() == Lendable.IN_USE) ? 1 : 0;
			}
		}
		return count;
	}

	/**
	 * Returns the borrowers waiting now.
	 * @return the number waiting
	 */
	public int waiting() {
		return this.waiters.waiting.get();
	}

	/**
	 * Returns how long the borrower that has waited longest has waited so far.
	 * @return the time in nanoseconds, 0 when nobody waits
	 */
	public long oldestWaitNanos() {
		return this.waiters.oldestWaitNanos();
	}

	/**
	 * Returns the items made so far.
	 * @return the number
	 */
	public long created() {
		return this.growth.created.get();
	}

	/**
	 * Returns the items destroyed so far.
	 * @return the number
	 */
	public long destroyed() {
		return this.growth.destroyed.get();
	}

	/**
	 * Returns how often a class doubled.
	 * @return the number
	 */
	public long grows() {
		return this.growth.grows.get();
	}

	/**
	 * Returns the items discarded by their borrowers so far.
	 * @return the number
	 */
	public long discarded() {
		return this.discarded.get();
	}

	/**
	 * Returns the borrows that timed out so far.
	 * @return the number
	 */
	public long timeouts() {
		return this.waiters.timeouts.get();
	}

	/**
	 * Returns how often waiting borrowers woke up.
	 * @return the number
	 */
	public long wakeUps() {
		return this.waiters.wakeUps.get();
	}

	/**
	 * Counts the idle and lent items of each class by their states, and the borrows.
	 * @return the counts
	 */
	public LendingCensus census() {
		int[] idle = new int[this.classes.length];
		int[] inUse = new int[this.classes.length];
		long borrows = 0;
		int totalInUse = 0;
		for (int i = 0; i < this.classes.length; i++) {
			ItemClass priorityClass = this.classes[i];
			Lendable[] items;
			// The items and the retired borrows as one snapshot: an item discarded
			// meanwhile is counted once, in the array or in the retired borrows (read
			// apart, a read between the two missed its borrows).
			synchronized (priorityClass) {
				items = priorityClass.items;
				borrows += priorityClass.retiredBorrows;
			}
			for (Lendable item : items) {
				int state = item.state();
				idle[i] += (state == Lendable.IDLE) ? 1 : 0;
				inUse[i] += (state == Lendable.IN_USE) ? 1 : 0;
				borrows += item.borrows;
			}
			totalInUse += inUse[i];
		}
		raisePeak(totalInUse);
		return new LendingCensus(idle, inUse, borrows, this.peakInUse);
	}

	/**
	 * Lends an item of a class exclusively to the caller, making more or waiting as the
	 * pool's settings say. Give it back with {@link #release} or {@link #discard}.
	 * @param classIndex the class
	 * @return the item; its {@link Lendable#waitNanos()} tells how long the borrow waited
	 * @throws RuntimeException what {@link LendingItems#checkLending()},
	 * {@link LendingItems#closed()}, {@link LendingItems#timedOut} or
	 * {@link LendingItems#interrupted} gives, or what {@link LendingItems#create} throws
	 */
	public E borrow(int classIndex) {
		return lend(classIndex, false, 0, this.defaultTenant);
	}

	/**
	 * Lends an item of a class to a tenant: while borrowers wait, the items released are
	 * handed to the tenants in turn by their weights
	 * ({@link dev.offload.internal.FairQueue}), and a tenant at its limit waits while
	 * others borrow.
	 * @param classIndex the class
	 * @param tenant the borrowing tenant
	 * @return the item
	 * @throws RuntimeException as {@link #borrow(int)} does
	 */
	public E borrow(int classIndex, LendingTenant tenant) {
		return lend(classIndex, false, 0, tenant);
	}

	/**
	 * Lends an item of a class to a tenant, waiting no longer than the caller's deadline.
	 * @param classIndex the class
	 * @param deadlineNanos the caller's deadline, on {@link System#nanoTime()}'s clock
	 * @param tenant the borrowing tenant
	 * @return the item
	 * @throws RuntimeException as {@link #borrow(int, long)} does
	 */
	public E borrow(int classIndex, long deadlineNanos, LendingTenant tenant) {
		return lend(classIndex, true, deadlineNanos, tenant);
	}

	/**
	 * Lends an item of a class, waiting no longer than the caller's deadline.
	 * @param classIndex the class
	 * @param deadlineNanos the caller's deadline, on {@link System#nanoTime()}'s clock
	 * @return the item; its {@link Lendable#waitNanos()} tells how long the borrow waited
	 * @throws RuntimeException what {@link LendingItems#deadlinePassed} gives if the
	 * deadline passed before an item was free (and before the class's borrow timeout),
	 * else as {@link #borrow(int)} does
	 */
	public E borrow(int classIndex, long deadlineNanos) {
		return lend(classIndex, true, deadlineNanos, this.defaultTenant);
	}

	private E lend(int classIndex, boolean hasDeadline, long deadlineNanos, LendingTenant tenant) {
		checkLending();
		E item = null;
		if (tenant.tryHold()) {
			item = takeIdle(classIndex);
			if (item == null) {
				tenant.unhold();
			}
		}
		long waitNanos = 0;
		if (item == null) {
			// Only the slow path reads the clock: System.nanoTime costs about 100 ns on
			// some virtual machines, more than the whole fast path; a borrow served from
			// the idle items is recorded as taking no time.
			long start = System.nanoTime();
			item = this.waiters.borrowSlow(classIndex, start, hasDeadline, deadlineNanos, tenant);
			waitNanos = System.nanoTime() - start;
			tenant.counters().waitNanos.add(waitNanos);
		}
		item.tenant = tenant;
		tenant.counters().borrows.increment();
		int lent = this.lentCounter.incrementAndGet(LendingTuning.LENT_SLOT);
		if (lent > this.peakInUse) {
			raisePeak(lent);
		}
		if (lent >= this.growth.growAheadAt) {
			this.growth.growAhead(classIndex);
		}
		item.borrows++;
		item.waitNanos = waitNanos;
		return item;
	}

	void checkLending() {
		this.items.checkLending();
		if (this.closed) {
			throw this.items.closed();
		}
	}

	private void raisePeak(int now) {
		if (now > this.peakInUse) {
			synchronized (this) {
				if (now > this.peakInUse) {
					this.peakInUse = now;
				}
			}
		}
	}

	@SuppressWarnings("unchecked")
	@Nullable E takeIdle(int classIndex) {
		Lendable last = this.lastReleased.get();
		if (last != null && last.classIndex == classIndex && last.compareAndSetState(Lendable.IDLE, Lendable.IN_USE)) {
			return (E) last;
		}
		return (E) this.classes[classIndex].hints.take(Lendable.IN_USE);
	}

	/**
	 * Takes back an item, for the next borrower.
	 * @param item an item this pool lent
	 * @throws IllegalStateException if the item is not lent
	 */
	public void release(E item) {
		LendingTenant tenant = item.tenant;
		returned(item, Lendable.IDLE);
		unhold(tenant);
		// Hinted before the waiters are read: a borrower that began to wait after that
		// read finds the hint.
		this.classes[item.classIndex].hints.offer(item);
		if (this.closed) {
			// Shutdown's drain may have run before this item came back; whoever wins the
			// state change destroys it.
			destroy(item, Lendable.IDLE);
			signal();
			return;
		}
		if (this.waiters.waiting.get() > 0 && this.waiters.handOff(item)) {
			return;
		}
		if (this.lastReleased.get() != item) {
			this.lastReleased.set(item);
		}
	}

	/**
	 * Destroys a lent item that must never be lent again; the next borrow that finds its
	 * class empty replaces it.
	 * @param item an item this pool lent
	 * @param destroyed what to do once the item is destroyed, before a waiter is woken to
	 * replace it (report the discard)
	 * @throws IllegalStateException if the item is not lent
	 */
	public void discard(E item, Runnable destroyed) {
		LendingTenant tenant = item.tenant;
		returned(item, Lendable.DISCARDED);
		unhold(tenant);
		this.discarded.incrementAndGet();
		retire(item);
		destroyed.run();
		if (this.waiters.waiting.get() > 0) {
			this.lock.lock();
			try {
				this.waiters.wakeOldest();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void returned(Lendable item, int newState) {
		// Counted down before the state change: once idle, the item may be lent and
		// counted again at once.
		this.lentCounter.decrementAndGet(LendingTuning.LENT_SLOT);
		if (!item.compareAndSetState(Lendable.IN_USE, newState)) {
			this.lentCounter.incrementAndGet(LendingTuning.LENT_SLOT);
			throw new IllegalStateException("The " + item + " of " + this.owner + " is not lent");
		}
	}

	private static void unhold(@Nullable LendingTenant tenant) {
		if (tenant != null) {
			tenant.unhold();
		}
	}

	private void destroy(Lendable item, int expectedState) {
		if (item.compareAndSetState(expectedState, Lendable.DISCARDED)) {
			retire(item);
		}
	}

	void retire(Lendable item) {
		this.classes[item.classIndex].remove(item);
		destroyRetired(item);
	}

	@SuppressWarnings("unchecked")
	private void destroyRetired(Lendable item) {
		try {
			this.items.destroy((E) item);
		}
		catch (RuntimeException ex) {
			this.logger.warn("Could not destroy {} of {}: {}", item, this.owner, ex.getMessage());
		}
		finally {
			this.growth.destroyed.incrementAndGet();
		}
	}

	/**
	 * Wakes every waiter and the shutdown, so that each checks again whether the pool
	 * lends (for example once the items' source failed).
	 */
	public void signal() {
		this.lock.lock();
		try {
			this.changed.signalAll();
			this.waiters.wakeAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops lending, destroys the idle items, and waits up to {@code awaitNanos} for lent
	 * items to come back (they are destroyed as they do). An item still lent afterwards
	 * is left alone, never destroyed under its user.
	 * @param awaitNanos how long to wait for lent items
	 * @return {@code true} if every item came back in time
	 */
	public boolean shutdown(long awaitNanos) {
		long deadline = System.nanoTime() + awaitNanos;
		this.lock.lock();
		try {
			this.closed = true;
			this.changed.signalAll();
			this.waiters.wakeAll();
			drainIdle();
			while (inUse() > 0) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				this.changed.awaitNanos(Math.min(remaining, LendingTuning.SHUTDOWN_POLL_NANOS));
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return inUse() == 0;
		}
		finally {
			drainIdle();
			this.lock.unlock();
		}
	}

	private void drainIdle() {
		for (ItemClass priorityClass : this.classes) {
			List<Lendable> drained = new ArrayList<>();
			for (Lendable item : priorityClass.items) {
				if (item.compareAndSetState(Lendable.IDLE, Lendable.DISCARDED)) {
					drained.add(item);
				}
			}
			if (!drained.isEmpty()) {
				priorityClass.remove(drained);
				drained.forEach(this::destroyRetired);
			}
		}
	}

	@Override
	public String toString() {
		LendingCensus census = census();
		return "LendingPool[" + this.owner + ", size=" + (created() - destroyed()) + ", inUse=" + census.inUse()
				+ ", idle=" + census.idle() + ", waiting=" + waiting() + "]";
	}

}
