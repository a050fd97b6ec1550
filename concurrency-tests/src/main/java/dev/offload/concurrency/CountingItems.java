package dev.offload.concurrency;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.LoggerFactory;

import dev.offload.internal.lending.Lendable;
import dev.offload.internal.lending.LendingItems;
import dev.offload.internal.lending.LendingPool;

/**
 * Items of a {@link LendingPool} that count how they are made and destroyed, so that the
 * concurrency tests can check the stream pool's lending algorithm directly, without a
 * device or sessions, against its own accounting, and catch an item destroyed twice. The
 * pool's growth stays on the borrowers' path (no background thread) and it allocates
 * little, which keeps model checkers' search spaces small.
 */
public final class CountingItems implements LendingItems<CountingItems.Item> {

	private final AtomicInteger created = new AtomicInteger();

	private final AtomicInteger destroyed = new AtomicInteger();

	private final AtomicInteger misuses = new AtomicInteger();

	/**
	 * Returns a pool of counting items of one class, whose first borrow makes one item.
	 * @param items the items
	 * @param maxSize the bound, 0 for none
	 * @param borrowTimeoutNanos how long a borrow from a full bounded pool waits
	 * @return the pool
	 */
	public static LendingPool<Item> pool(CountingItems items, int maxSize, long borrowTimeoutNanos) {
		return pool(items, maxSize, borrowTimeoutNanos, 1);
	}

	/**
	 * Returns a pool of counting items whose first borrow of a class makes one item.
	 * @param items the items
	 * @param maxSize the bound of all classes together, 0 for none
	 * @param borrowTimeoutNanos how long a borrow from a full bounded pool waits
	 * @param classes how many classes
	 * @return the pool
	 */
	public static LendingPool<Item> pool(CountingItems items, int maxSize, long borrowTimeoutNanos, int classes) {
		int[] limits = new int[classes];
		long[] borrowTimeouts = new long[classes];
		Arrays.fill(limits, Integer.MAX_VALUE);
		Arrays.fill(borrowTimeouts, borrowTimeoutNanos);
		return new LendingPool<>(items, 1, maxSize, limits, borrowTimeouts,
				LoggerFactory.getLogger(CountingItems.class), "counting items");
	}

	/**
	 * Returns the items made so far.
	 * @return the count
	 */
	public int created() {
		return this.created.get();
	}

	/**
	 * Returns the destructions so far, an item destroyed twice counting twice.
	 * @return the count
	 */
	public int destroyed() {
		return this.destroyed.get();
	}

	/**
	 * Returns how often an item was destroyed after it had been destroyed.
	 * @return the count, 0 in a correct run
	 */
	public int misuses() {
		return this.misuses.get();
	}

	@Override
	public List<Item> create(int classIndex, int count) {
		List<Item> made = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			made.add(new Item(classIndex, this.created.getAndIncrement()));
		}
		return made;
	}

	@Override
	public void destroy(Item item) {
		this.destroyed.incrementAndGet();
		if (item.destroyed) {
			this.misuses.incrementAndGet();
		}
		item.destroyed = true;
	}

	@Override
	public void checkLending() {
	}

	@Override
	public boolean canCreate() {
		return true;
	}

	@Override
	public void execute(Runnable task) {
		throw new RejectedExecutionException("The borrowers grow the pool");
	}

	@Override
	public RuntimeException closed() {
		return new Refused();
	}

	@Override
	public RuntimeException timedOut(int classIndex, long waitedNanos) {
		return new TimedOut();
	}

	@Override
	public RuntimeException deadlinePassed(int classIndex, long waitedNanos) {
		return new TimedOut();
	}

	@Override
	public RuntimeException interrupted(InterruptedException cause) {
		return new IllegalStateException(cause);
	}

	/**
	 * A counting item: its number, and whether it was destroyed.
	 */
	public static final class Item extends Lendable {

		private final int id;

		volatile boolean destroyed;

		Item(int classIndex, int id) {
			super(classIndex);
			this.id = id;
		}

		/**
		 * Returns the item's number, from 0 in the order they were made.
		 * @return the number
		 */
		public int id() {
			return this.id;
		}

		/**
		 * Tells whether the item was destroyed.
		 * @return {@code true} once destroyed
		 */
		public boolean isDestroyed() {
			return this.destroyed;
		}

		@Override
		public String toString() {
			return "item " + this.id;
		}

	}

	/**
	 * A borrow from a shut down pool.
	 */
	public static final class Refused extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Refused() {
			super("The pool is shut down", null, false, false);
		}

	}

	/**
	 * A borrow from a full bounded pool that waited its timeout.
	 */
	public static final class TimedOut extends RuntimeException {

		private static final long serialVersionUID = 1L;

		TimedOut() {
			super("No item was free", null, false, false);
		}

	}

}
