package dev.offload.internal;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The lending algorithm of a pool of costly items in priority classes (the shape of
 * HikariCP's {@code ConcurrentBag}), apart from what the items are: {@link Items} makes
 * and destroys them, says whether their source can still lend and builds the exceptions a
 * borrower sees. The stream pool lends a device's streams through it; the benchmarks
 * measure it over items that cost nothing.
 * <p>
 * How it lends: every item is in its class's shared array, and its state
 * ({@link Lendable#IDLE}, {@link Lendable#IN_USE}, {@link Lendable#DISCARDED}) changes
 * only by compare-and-set, so an item is never lent twice. A thread first tries the item
 * it released last (no contention, warm caches), then scans the class's items from a
 * place that depends on the thread. One shared counter changes on the fast path, the
 * items lent now (on a cache line of its own), so that the peak in use is exact; each
 * item counts its own borrows, and idle and lent items are counted from their states when
 * asked. The lock serves growth, waiting and shutdown only; a release takes it only when
 * a borrower waits.
 * <p>
 * How it grows: nothing is made until the first borrow of a class, which makes the
 * initial size. When a class has no idle item, the pool first replaces items it
 * discarded, then doubles the class, up to the bound in all and the class's limit. A
 * borrower that finds no item makes at most {@value #GROW_BATCH} itself and the
 * background executor makes the rest of the doubling in batches of that size, handing
 * each batch to the waiters; once {@value #GROW_BATCH} or more items exist, a borrow that
 * leaves three quarters of them lent has the next doubling begin there. When a bounded
 * pool is full, a borrow that finds no idle item of its class destroys an idle item of
 * another class and makes one of its own, so no borrow waits while an item is idle.
 * <p>
 * How it waits: a borrower that finds no item and cannot grow the pool queues in its
 * class's queue of waiters, first come, first served, for at most its class's borrow
 * timeout. A release while borrowers wait hands the item to the oldest waiter of its
 * class and wakes that one alone; with no waiter of its class, it wakes the oldest waiter
 * of another class, which may replace an idle item by one of its own. A discard wakes one
 * waiter to replace the item.
 * <p>
 * Invariant: {@code created - destroyed == idle + inUse}.
 *
 * @param <E> the items
 */
public final class LendingPool<E extends Lendable> {

	/**
	 * The most items a borrower makes itself, and the size of the batches made in the
	 * background.
	 */
	public static final int GROW_BATCH = 64;

	/**
	 * The index of the lent counter in its array: 64 bytes of other elements on either
	 * side.
	 */
	private static final int LENT_SLOT = 16;

	private final Items<E> items;

	private final Logger logger;

	private final String owner;

	private final int initialSize;

	private final int maxSize;

	private final ClassState[] classes;

	/** The lent items from which the next doubling begins in the background. */
	private volatile int growAheadAt = Integer.MAX_VALUE;

	private final ThreadLocal<Lendable> lastReleased = new ThreadLocal<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final AtomicInteger waiting = new AtomicInteger();

	/** How often a waiting borrower woke up: for tests. */
	private final AtomicLong wakeUps = new AtomicLong();

	/**
	 * The items lent now, in the middle of 32 ints so that no other field shares its
	 * cache line; counted from the moment a borrow takes an item to the moment its
	 * release begins, so it never exceeds the items lent.
	 */
	private final AtomicIntegerArray lentCounter = new AtomicIntegerArray(2 * LENT_SLOT);

	private volatile int peakInUse;

	private final AtomicLong grows = new AtomicLong();

	private final AtomicLong created = new AtomicLong();

	private final AtomicLong destroyed = new AtomicLong();

	private final AtomicLong discarded = new AtomicLong();

	private final AtomicLong timeouts = new AtomicLong();

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

	private volatile boolean closed;

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
	public LendingPool(Items<E> items, int initialSize, int maxSize, int[] limits, long[] borrowTimeoutNanos,
			Logger logger, String owner) {
		if (limits.length != borrowTimeoutNanos.length) {
			throw new IllegalArgumentException("One limit and one borrow timeout per class");
		}
		this.items = items;
		this.initialSize = initialSize;
		this.maxSize = maxSize;
		this.logger = logger;
		this.owner = owner;
		this.classes = new ClassState[limits.length];
		for (int i = 0; i < limits.length; i++) {
			this.classes[i] = new ClassState(limits[i], borrowTimeoutNanos[i]);
		}
	}

	private boolean isBounded() {
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
		for (ClassState state : this.classes) {
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
		return this.waiting.get();
	}

	/**
	 * Returns how long the borrower that has waited longest has waited so far.
	 * @return the time in nanoseconds, 0 when nobody waits
	 */
	public long oldestWaitNanos() {
		WaitRecord oldest = this.oldestWaiting;
		return (oldest != null) ? Math.max(0, System.nanoTime() - oldest.start) : 0;
	}

	/**
	 * Returns the items made so far.
	 * @return the number
	 */
	public long created() {
		return this.created.get();
	}

	/**
	 * Returns the items destroyed so far.
	 * @return the number
	 */
	public long destroyed() {
		return this.destroyed.get();
	}

	/**
	 * Returns how often a class doubled.
	 * @return the number
	 */
	public long grows() {
		return this.grows.get();
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
		return this.timeouts.get();
	}

	/**
	 * Returns how often waiting borrowers woke up.
	 * @return the number
	 */
	public long wakeUps() {
		return this.wakeUps.get();
	}

	/**
	 * Counts the idle and lent items of each class by their states, and the borrows.
	 * @return the counts
	 */
	public Census census() {
		int[] idle = new int[this.classes.length];
		int[] inUse = new int[this.classes.length];
		long borrows = 0;
		int totalInUse = 0;
		for (int i = 0; i < this.classes.length; i++) {
			ClassState priorityClass = this.classes[i];
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
		return new Census(idle, inUse, borrows, this.peakInUse);
	}

	/**
	 * Lends an item of a class exclusively to the caller, making more or waiting as the
	 * pool's settings say. Give it back with {@link #release} or {@link #discard}.
	 * @param classIndex the class
	 * @return the item; its {@link Lendable#waitNanos()} tells how long the borrow waited
	 * @throws RuntimeException what {@link Items#checkLending()}, {@link Items#closed()},
	 * {@link Items#timedOut} or {@link Items#interrupted} gives, or what
	 * {@link Items#create} throws
	 */
	public E borrow(int classIndex) {
		return lend(classIndex, false, 0);
	}

	/**
	 * Lends an item of a class, waiting no longer than the caller's deadline.
	 * @param classIndex the class
	 * @param deadlineNanos the caller's deadline, on {@link System#nanoTime()}'s clock
	 * @return the item; its {@link Lendable#waitNanos()} tells how long the borrow waited
	 * @throws RuntimeException what {@link Items#deadlinePassed} gives if the deadline
	 * passed before an item was free (and before the class's borrow timeout), else as
	 * {@link #borrow(int)} does
	 */
	public E borrow(int classIndex, long deadlineNanos) {
		return lend(classIndex, true, deadlineNanos);
	}

	private E lend(int classIndex, boolean hasDeadline, long deadlineNanos) {
		checkLending();
		E item = takeIdle(classIndex);
		long waitNanos = 0;
		if (item == null) {
			// Only the slow path reads the clock: System.nanoTime costs about 100 ns on
			// some virtual machines, more than the whole fast path; a borrow served from
			// the idle items is recorded as taking no time.
			long start = System.nanoTime();
			item = borrowSlow(classIndex, start, hasDeadline, deadlineNanos);
			waitNanos = System.nanoTime() - start;
		}
		int lent = this.lentCounter.incrementAndGet(LENT_SLOT);
		if (lent > this.peakInUse) {
			raisePeak(lent);
		}
		if (lent >= this.growAheadAt) {
			growAhead(classIndex);
		}
		item.borrows++;
		item.waitNanos = waitNanos;
		return item;
	}

	private void checkLending() {
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
	private @Nullable E takeIdle(int classIndex) {
		Lendable last = this.lastReleased.get();
		if (last != null && last.classIndex == classIndex && last.compareAndSetState(Lendable.IDLE, Lendable.IN_USE)) {
			return (E) last;
		}
		Lendable[] items = this.classes[classIndex].items;
		int count = items.length;
		if (count == 0) {
			return null;
		}
		// Threads start their scans at different items, so that they do not all race for
		// the first idle one.
		int start = (int) (Thread.currentThread().getId() % count);
		for (int i = 0; i < count; i++) {
			Lendable item = items[(start + i) % count];
			if (item.state() == Lendable.IDLE && item.compareAndSetState(Lendable.IDLE, Lendable.IN_USE)) {
				return (E) item;
			}
		}
		return null;
	}

	@SuppressWarnings("unchecked")
	private E borrowSlow(int classIndex, long start, boolean hasDeadline, long deadlineNanos) {
		long timeoutNanos = this.classes[classIndex].borrowTimeoutNanos;
		this.waiting.incrementAndGet();
		ArrayDeque<Waiter> queue = this.classes[classIndex].waiters;
		Waiter waiter = null;
		WaitRecord record = startWaiting(start);
		this.lock.lock();
		try {
			while (true) {
				if (waiter != null && waiter.item != null) {
					return (E) waiter.item;
				}
				checkLending();
				E item = takeIdle(classIndex);
				if (item != null) {
					return item;
				}
				if (grow(classIndex)) {
					continue;
				}
				long remaining = timeoutNanos - (System.nanoTime() - start);
				if (hasDeadline && deadlineNanos - System.nanoTime() < remaining) {
					remaining = deadlineNanos - System.nanoTime();
					if (remaining <= 0) {
						throw this.items.deadlinePassed(classIndex, System.nanoTime() - start);
					}
				}
				if (remaining <= 0) {
					this.timeouts.incrementAndGet();
					// This borrower still counts as waiting while the exception reports
					// the pool's state.
					throw this.items.timedOut(classIndex, System.nanoTime() - start);
				}
				if (waiter == null) {
					waiter = new Waiter(this.lock.newCondition());
					queue.addLast(waiter);
				}
				else if (!waiter.queued) {
					// Woken to try again and found nothing: it keeps its place.
					queue.addFirst(waiter);
				}
				waiter.queued = true;
				waiter.wake.awaitNanos(remaining);
				this.wakeUps.incrementAndGet();
			}
		}
		catch (InterruptedException ex) {
			if (waiter != null && waiter.item != null) {
				// Handed an item as the interrupt came: keep it, and the interrupt.
				Thread.currentThread().interrupt();
				return (E) waiter.item;
			}
			Thread.currentThread().interrupt();
			throw this.items.interrupted(ex);
		}
		finally {
			if (waiter != null && waiter.queued) {
				queue.remove(waiter);
			}
			this.waiting.decrementAndGet();
			this.lock.unlock();
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
	 * Makes items for a class while holding the lock: first replacing discarded ones,
	 * else doubling.
	 * @return whether at least one item was made
	 */
	private boolean grow(int classIndex) {
		ClassState state = this.classes[classIndex];
		int size = state.items.length;
		int count;
		boolean doubling = false;
		if (size < state.capacity) {
			count = state.capacity - size;
		}
		else {
			count = (state.capacity == 0) ? this.initialSize : state.capacity;
			doubling = state.capacity > 0;
		}
		// A class holds at most its limit of items, so that at most that many of its
		// borrowers hold one at once.
		count = Math.min(count, state.limit - size);
		if (isBounded()) {
			count = Math.min(count, this.maxSize - alive());
		}
		if (count <= 0) {
			// A class at its limit takes no item from another class either.
			return isBounded() && size < state.limit && replaceIdleOfOtherClass(classIndex);
		}
		int now = Math.min(count, GROW_BATCH);
		int made = create(classIndex, now);
		state.capacity = Math.max(state.capacity, state.items.length + ((made == now) ? count - now : 0));
		if (made == now && count > now) {
			growInBackground(classIndex);
		}
		if (doubling && made > 0) {
			this.grows.incrementAndGet();
			this.logger.debug("Stream pool of {} grew its {} class to {} streams", this.owner,
					this.items.className(classIndex), state.items.length);
		}
		return made > 0;
	}

	private int alive() {
		return (int) (this.created.get() - this.destroyed.get());
	}

	/**
	 * Begins the next doubling of a class in the background, unless one is under way: a
	 * borrow left three quarters of the items lent.
	 */
	private void growAhead(int classIndex) {
		ClassState state = this.classes[classIndex];
		int length = state.items.length;
		// Unlocked reads, as a hint: most borrows past the mark return here.
		if (state.growing || this.closed || length < GROW_BATCH || length >= state.limit || state.capacity > length
				|| !this.lock.tryLock()) {
			return;
		}
		try {
			int size = state.items.length;
			if (state.growing || size < GROW_BATCH || state.capacity > size) {
				return;
			}
			int target = Math.min(2 * size, state.limit);
			if (isBounded()) {
				target = Math.min(target, size + this.maxSize - alive());
			}
			if (target > size) {
				state.capacity = target;
				this.grows.incrementAndGet();
				growInBackground(classIndex);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Has the background executor make the items a class lacks to reach its capacity, in
	 * batches, each handed to the waiters as it is made; while holding the lock.
	 * Borrowers that find no item meanwhile make their own batch.
	 */
	private void growInBackground(int classIndex) {
		ClassState state = this.classes[classIndex];
		if (state.growing) {
			return;
		}
		state.growing = true;
		try {
			this.items.execute(() -> createInBatches(classIndex));
		}
		catch (RuntimeException ex) {
			state.growing = false;
			this.logger.debug("Stream pool of {} grows on its borrowers' path: {}", this.owner, ex.getMessage());
		}
	}

	private void createInBatches(int classIndex) {
		ClassState state = this.classes[classIndex];
		try {
			while (true) {
				this.lock.lock();
				try {
					int size = state.items.length;
					int count = Math.min(state.capacity, state.limit) - size;
					if (isBounded()) {
						count = Math.min(count, this.maxSize - alive());
					}
					if (count <= 0 || this.closed || !this.items.canCreate()) {
						return;
					}
					int made = create(classIndex, Math.min(count, GROW_BATCH));
					for (int i = 0; i < made; i++) {
						wakeOldestOf(classIndex);
					}
				}
				finally {
					this.lock.unlock();
				}
			}
		}
		catch (RuntimeException ex) {
			this.logger.warn("Stream pool of {} could not grow its {} class in the background: {}", this.owner,
					this.items.className(classIndex), ex.getMessage());
		}
		finally {
			this.lock.lock();
			try {
				state.growing = false;
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Wakes the oldest waiter of a class to take an item just made; while holding the
	 * lock.
	 */
	private void wakeOldestOf(int classIndex) {
		Waiter first = this.classes[classIndex].waiters.pollFirst();
		if (first != null) {
			first.queued = false;
			first.wake.signal();
		}
	}

	/**
	 * Makes room in a full bounded pool, while holding the lock: destroys an idle item of
	 * another class and makes one of {@code classIndex} in its place. Without it, a pool
	 * filled by one class would make every borrow of another class wait its full timeout
	 * next to idle items.
	 * @return whether an item of the class was made
	 */
	private boolean replaceIdleOfOtherClass(int classIndex) {
		for (int other = 0; other < this.classes.length; other++) {
			if (other == classIndex) {
				continue;
			}
			for (Lendable item : this.classes[other].items) {
				if (item.compareAndSetState(Lendable.IDLE, Lendable.DISCARDED)) {
					retire(item);
					this.logger.debug("Stream pool of {} is full: replaced idle {} by a {} stream", this.owner, item,
							this.items.className(classIndex));
					ClassState state = this.classes[classIndex];
					int made = create(classIndex, 1);
					state.capacity = Math.max(state.capacity, state.items.length);
					return made > 0;
				}
			}
		}
		return false;
	}

	private int create(int classIndex, int count) {
		List<E> made = this.items.create(classIndex, count);
		this.created.addAndGet(made.size());
		this.classes[classIndex].add(made);
		updateGrowAhead();
		return made.size();
	}

	/**
	 * Sets the lent count from which the next doubling begins ahead: three quarters of
	 * the items, once there are {@link #GROW_BATCH} and the pool may grow.
	 */
	private void updateGrowAhead() {
		int alive = alive();
		boolean mayGrow = !isBounded() || alive < this.maxSize;
		this.growAheadAt = (alive >= GROW_BATCH && mayGrow) ? alive - alive / 4 : Integer.MAX_VALUE;
	}

	/**
	 * Takes back an item, for the next borrower.
	 * @param item an item this pool lent
	 * @throws IllegalStateException if the item is not lent
	 */
	public void release(E item) {
		returned(item, Lendable.IDLE);
		if (this.closed) {
			// Shutdown's drain may have run before this item came back; whoever wins the
			// state change destroys it.
			destroy(item, Lendable.IDLE);
			signal();
			return;
		}
		if (this.waiting.get() > 0 && handOff(item)) {
			return;
		}
		if (this.lastReleased.get() != item) {
			this.lastReleased.set(item);
		}
	}

	/**
	 * Gives an item just made idle to the oldest waiter of its class, or wakes the oldest
	 * waiter of another class, which may replace an idle item by one of its own.
	 * @return whether the item was handed to a waiter
	 */
	private boolean handOff(Lendable item) {
		this.lock.lock();
		try {
			Waiter first = this.classes[item.classIndex].waiters.pollFirst();
			if (first != null) {
				first.queued = false;
				if (item.compareAndSetState(Lendable.IDLE, Lendable.IN_USE)) {
					first.item = item;
					first.wake.signal();
					return true;
				}
				// A borrower that scanned took it: this waiter tries again.
				first.wake.signal();
				return false;
			}
			wakeOldest();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wakes the waiter that has waited longest, of any class, to try again; while holding
	 * the lock.
	 */
	private void wakeOldest() {
		ArrayDeque<Waiter> from = this.classes[0].waiters;
		for (ClassState state : this.classes) {
			Waiter first = state.waiters.peekFirst();
			Waiter oldest = from.peekFirst();
			if (first != null && (oldest == null || first.since - oldest.since < 0)) {
				from = state.waiters;
			}
		}
		Waiter oldest = from.pollFirst();
		if (oldest != null) {
			oldest.queued = false;
			oldest.wake.signal();
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
		returned(item, Lendable.DISCARDED);
		this.discarded.incrementAndGet();
		retire(item);
		destroyed.run();
		if (this.waiting.get() > 0) {
			this.lock.lock();
			try {
				wakeOldest();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void returned(Lendable item, int newState) {
		// Counted down before the state change: once idle, the item may be lent and
		// counted again at once.
		this.lentCounter.decrementAndGet(LENT_SLOT);
		if (!item.compareAndSetState(Lendable.IN_USE, newState)) {
			this.lentCounter.incrementAndGet(LENT_SLOT);
			throw new IllegalStateException("The " + item + " of " + this.owner + " is not lent");
		}
	}

	private void destroy(Lendable item, int expectedState) {
		if (item.compareAndSetState(expectedState, Lendable.DISCARDED)) {
			retire(item);
		}
	}

	@SuppressWarnings("unchecked")
	private void retire(Lendable item) {
		this.classes[item.classIndex].remove(item);
		try {
			this.items.destroy((E) item);
		}
		catch (RuntimeException ex) {
			this.logger.warn("Could not destroy {} of {}: {}", item, this.owner, ex.getMessage());
		}
		finally {
			this.destroyed.incrementAndGet();
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
			wakeAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void wakeAll() {
		for (ClassState state : this.classes) {
			Waiter waiter;
			while ((waiter = state.waiters.pollFirst()) != null) {
				waiter.queued = false;
				waiter.wake.signal();
			}
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
			wakeAll();
			drainIdle();
			while (inUse() > 0) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				this.changed.awaitNanos(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
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
		for (ClassState state : this.classes) {
			for (Lendable item : state.items) {
				destroy(item, Lendable.IDLE);
			}
		}
	}

	@Override
	public String toString() {
		Census census = census();
		return "LendingPool[" + this.owner + ", size=" + (this.created.get() - this.destroyed.get()) + ", inUse="
				+ census.inUse() + ", idle=" + census.idle() + ", waiting=" + this.waiting.get() + "]";
	}

	/**
	 * What a pool's items are: how they are made and destroyed, whether their source can
	 * still lend, and what a borrower that gets none sees.
	 *
	 * @param <E> the items
	 */
	public interface Items<E extends Lendable> {

		/**
		 * Makes items of a class; called while holding the pool's lock.
		 * @param classIndex the class
		 * @param count how many to make
		 * @return at least one item, of {@code classIndex}, fewer than {@code count} if
		 * some could not be made
		 * @throws RuntimeException if none could be made
		 */
		List<E> create(int classIndex, int count);

		/**
		 * Destroys an item that left the pool; a {@link RuntimeException} is logged.
		 * @param item the item
		 */
		void destroy(E item);

		/**
		 * Throws if the items' source can lend no more (a failed device); called by every
		 * borrow before the pool checks that it is open.
		 */
		void checkLending();

		/**
		 * Tells whether the background growth may go on making items.
		 * @return {@code false} once the items' source failed
		 */
		boolean canCreate();

		/**
		 * Runs a background growth.
		 * @param task the growth
		 * @throws RuntimeException if it cannot: the borrowers grow the pool themselves
		 */
		void execute(Runnable task);

		/**
		 * Returns the exception of a borrow from a shut down pool.
		 * @return the exception to throw
		 */
		RuntimeException closed();

		/**
		 * Returns the exception of a borrow that waited its class's borrow timeout; the
		 * borrower still counts as waiting.
		 * @param classIndex the class
		 * @param waitedNanos how long it waited
		 * @return the exception to throw
		 */
		RuntimeException timedOut(int classIndex, long waitedNanos);

		/**
		 * Returns the exception of a borrow whose caller's deadline passed before an item
		 * was free and before its class's borrow timeout.
		 * @param classIndex the class
		 * @param waitedNanos how long it waited
		 * @return the exception to throw
		 */
		RuntimeException deadlinePassed(int classIndex, long waitedNanos);

		/**
		 * Returns the exception of a borrow interrupted while it waited.
		 * @param cause the interrupt
		 * @return the exception to throw
		 */
		RuntimeException interrupted(InterruptedException cause);

		/**
		 * Names a class, for the log.
		 * @param classIndex the class
		 * @return its name
		 */
		default String className(int classIndex) {
			return String.valueOf(classIndex);
		}

	}

	/**
	 * The idle and lent items of each class, counted by their states, and the borrows so
	 * far.
	 */
	public static final class Census {

		private final int[] idle;

		private final int[] inUse;

		private final long borrows;

		private final int peakInUse;

		Census(int[] idle, int[] inUse, long borrows, int peakInUse) {
			this.idle = idle;
			this.inUse = inUse;
			this.borrows = borrows;
			this.peakInUse = peakInUse;
		}

		/**
		 * Returns the idle items of a class.
		 * @param classIndex the class
		 * @return the number
		 */
		public int idle(int classIndex) {
			return this.idle[classIndex];
		}

		/**
		 * Returns the lent items of a class.
		 * @param classIndex the class
		 * @return the number
		 */
		public int inUse(int classIndex) {
			return this.inUse[classIndex];
		}

		/**
		 * Returns the idle items of all classes.
		 * @return the number
		 */
		public int idle() {
			return Arrays.stream(this.idle).sum();
		}

		/**
		 * Returns the lent items of all classes.
		 * @return the number
		 */
		public int inUse() {
			return Arrays.stream(this.inUse).sum();
		}

		/**
		 * Returns the borrows so far, of items alive or destroyed.
		 * @return the number
		 */
		public long borrows() {
			return this.borrows;
		}

		/**
		 * Returns the most items lent at once so far.
		 * @return the number
		 */
		public int peakInUse() {
			return this.peakInUse;
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

		/** Whether it is in its class's queue. */
		boolean queued;

		/** The item a release handed to it. */
		@Nullable Lendable item;

		Waiter(Condition wake) {
			this.wake = wake;
		}

	}

	/**
	 * The items of one class.
	 */
	private static final class ClassState {

		/**
		 * Every item of the class that is not destroyed; replaced, never changed, on
		 * growth and discard.
		 */
		volatile Lendable[] items = new Lendable[0];

		/** The borrowers waiting, oldest first; guarded by the pool's lock. */
		final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

		/** The size the class grew to; guarded by the pool's lock. */
		int capacity;

		/** Whether items are being made in the background; guarded by the lock. */
		volatile boolean growing;

		/**
		 * The borrows of the class's destroyed items; changes with {@link #items}, under
		 * this monitor.
		 */
		long retiredBorrows;

		/** The most items the class holds, or {@link Integer#MAX_VALUE}. */
		final int limit;

		/** How long a borrow of the class waits. */
		final long borrowTimeoutNanos;

		ClassState(int limit, long borrowTimeoutNanos) {
			this.limit = limit;
			this.borrowTimeoutNanos = borrowTimeoutNanos;
		}

		synchronized void add(List<? extends Lendable> made) {
			Lendable[] grown = Arrays.copyOf(this.items, this.items.length + made.size());
			for (int i = 0; i < made.size(); i++) {
				grown[this.items.length + i] = made.get(i);
			}
			this.items = grown;
		}

		synchronized void remove(Lendable item) {
			this.items = Arrays.stream(this.items).filter((each) -> each != item).toArray(Lendable[]::new);
			this.retiredBorrows += item.borrows;
		}

	}

}
