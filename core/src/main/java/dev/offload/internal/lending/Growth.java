package dev.offload.internal.lending;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a {@link LendingPool} grows and makes room: nothing is made until the first borrow
 * of a class, which makes the initial size. When a class has no idle item, the pool first
 * replaces items it discarded, then doubles the class, up to the bound in all and the
 * class's limit. A borrower that finds no item makes at most
 * {@value LendingTuning#GROW_BATCH} itself and the background executor makes the rest of
 * the doubling in batches of that size, handing each batch to the waiters; once
 * {@value LendingTuning#GROW_BATCH} or more items exist, a borrow that leaves three
 * quarters of them lent has the next doubling begin there. When a bounded pool is full, a
 * borrow that finds no idle item of its class destroys an idle item of another class and
 * makes one of its own, so no borrow waits while an item is idle.
 *
 * @param <E> the items
 */
final class Growth<E extends Lendable> {

	private final LendingPool<E> pool;

	/** The lent items from which the next doubling begins in the background. */
	volatile int growAheadAt = Integer.MAX_VALUE;

	final AtomicLong grows = new AtomicLong();

	final AtomicLong created = new AtomicLong();

	final AtomicLong destroyed = new AtomicLong();

	Growth(LendingPool<E> pool) {
		this.pool = pool;
	}

	int alive() {
		return (int) (this.created.get() - this.destroyed.get());
	}

	/**
	 * Makes items for a class while holding the lock: first replacing discarded ones,
	 * else doubling.
	 * @return whether at least one item was made
	 */
	boolean grow(int classIndex) {
		ItemClass state = this.pool.classes[classIndex];
		int size = state.items.length;
		int count;
		boolean doubling = false;
		if (size < state.capacity) {
			count = state.capacity - size;
		}
		else {
			count = (state.capacity == 0) ? this.pool.initialSize : state.capacity;
			doubling = state.capacity > 0;
		}
		// A class holds at most its limit of items, so that at most that many of its
		// borrowers hold one at once.
		count = Math.min(count, state.limit - size);
		if (this.pool.isBounded()) {
			count = Math.min(count, this.pool.maxSize - alive());
		}
		if (count <= 0) {
			// A class at its limit takes no item from another class either.
			return this.pool.isBounded() && size < state.limit && replaceIdleOfOtherClass(classIndex);
		}
		int now = Math.min(count, LendingTuning.GROW_BATCH);
		int made = create(classIndex, now);
		state.capacity = Math.max(state.capacity, state.items.length + ((made == now) ? count - now : 0));
		if (made == now && count > now) {
			growInBackground(classIndex);
		}
		if (doubling && made > 0) {
			this.grows.incrementAndGet();
			this.pool.logger.debug("Stream pool of {} grew its {} class to {} streams", this.pool.owner,
					this.pool.items.className(classIndex), state.items.length);
		}
		return made > 0;
	}

	/**
	 * Begins the next doubling of a class in the background, unless one is under way: a
	 * borrow left three quarters of the items lent.
	 */
	void growAhead(int classIndex) {
		ItemClass state = this.pool.classes[classIndex];
		int length = state.items.length;
		// Unlocked reads, as a hint: most borrows past the mark return here.
		if (state.growing || this.pool.isClosed() || length < LendingTuning.GROW_BATCH || length >= state.limit
				|| state.capacity > length || !this.pool.lock.tryLock()) {
			return;
		}
		try {
			int size = state.items.length;
			if (state.growing || size < LendingTuning.GROW_BATCH || state.capacity > size) {
				return;
			}
			int target = Math.min(2 * size, state.limit);
			if (this.pool.isBounded()) {
				target = Math.min(target, size + this.pool.maxSize - alive());
			}
			if (target > size) {
				state.capacity = target;
				this.grows.incrementAndGet();
				growInBackground(classIndex);
			}
		}
		finally {
			this.pool.lock.unlock();
		}
	}

	/**
	 * Has the background executor make the items a class lacks to reach its capacity, in
	 * batches, each handed to the waiters as it is made; while holding the lock.
	 * Borrowers that find no item meanwhile make their own batch.
	 */
	private void growInBackground(int classIndex) {
		ItemClass state = this.pool.classes[classIndex];
		if (state.growing) {
			return;
		}
		state.growing = true;
		try {
			this.pool.items.execute(() -> createInBatches(classIndex));
		}
		catch (RuntimeException ex) {
			state.growing = false;
			this.pool.logger.debug("Stream pool of {} grows on its borrowers' path: {}", this.pool.owner,
					ex.getMessage());
		}
	}

	private void createInBatches(int classIndex) {
		ItemClass state = this.pool.classes[classIndex];
		try {
			while (true) {
				this.pool.lock.lock();
				try {
					int size = state.items.length;
					int count = Math.min(state.capacity, state.limit) - size;
					if (this.pool.isBounded()) {
						count = Math.min(count, this.pool.maxSize - alive());
					}
					if (count <= 0 || this.pool.isClosed() || !this.pool.items.canCreate()) {
						return;
					}
					int made = create(classIndex, Math.min(count, LendingTuning.GROW_BATCH));
					for (int i = 0; i < made; i++) {
						this.pool.waiters.wakeOldestOf(classIndex);
					}
				}
				finally {
					this.pool.lock.unlock();
				}
			}
		}
		catch (RuntimeException ex) {
			this.pool.logger.warn("Stream pool of {} could not grow its {} class in the background: {}",
					this.pool.owner, this.pool.items.className(classIndex), ex.getMessage());
		}
		finally {
			this.pool.lock.lock();
			try {
				state.growing = false;
			}
			finally {
				this.pool.lock.unlock();
			}
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
		ItemClass[] classes = this.pool.classes;
		for (int other = 0; other < classes.length; other++) {
			if (other == classIndex) {
				continue;
			}
			Lendable item = classes[other].hints.take(Lendable.DISCARDED);
			if (item != null) {
				this.pool.retire(item);
				this.pool.logger.debug("Stream pool of {} is full: replaced idle {} by a {} stream", this.pool.owner,
						item, this.pool.items.className(classIndex));
				ItemClass state = classes[classIndex];
				int made = create(classIndex, 1);
				state.capacity = Math.max(state.capacity, state.items.length);
				return made > 0;
			}
		}
		return false;
	}

	private int create(int classIndex, int count) {
		List<E> made = this.pool.items.create(classIndex, count);
		this.created.addAndGet(made.size());
		this.pool.classes[classIndex].add(made);
		updateGrowAhead();
		return made.size();
	}

	/**
	 * Sets the lent count from which the next doubling begins ahead: three quarters of
	 * the items, once there are {@link LendingTuning#GROW_BATCH} and the pool may grow.
	 */
	private void updateGrowAhead() {
		int alive = alive();
		boolean mayGrow = !this.pool.isBounded() || alive < this.pool.maxSize;
		this.growAheadAt = (alive >= LendingTuning.GROW_BATCH && mayGrow)
				? alive - alive / LendingTuning.GROW_AHEAD_DIVISOR : Integer.MAX_VALUE;
	}

}
