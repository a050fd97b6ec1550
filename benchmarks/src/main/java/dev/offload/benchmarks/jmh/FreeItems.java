package dev.offload.benchmarks.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

import org.slf4j.LoggerFactory;

import dev.offload.StreamPriority;
import dev.offload.internal.lending.Lendable;
import dev.offload.internal.lending.LendingItems;
import dev.offload.internal.lending.LendingPool;

/**
 * Items that cost nothing, for measuring the lending algorithm of Offload's
 * {@link dev.offload.StreamPool} alone: a {@link LendingPool} over them is the stream
 * pool without a device (no stream to create, no device health to check, no listener to
 * tell), as HikariCP's benchmarks measure its {@code ConcurrentBag} over plain entries.
 * One class per {@link StreamPriority}, as in the stream pool.
 */
final class FreeItems implements LendingItems<FreeItems.Item> {

	private FreeItems() {
	}

	/**
	 * Returns a pool of free items with the stream pool's classes.
	 * @param initialSize the items a class's first borrow makes
	 * @param maxSize the most items in all, 0 for no bound
	 * @param borrowTimeoutNanos how long a borrow from a full bounded pool waits
	 * @return the pool
	 */
	static LendingPool<Item> pool(int initialSize, int maxSize, long borrowTimeoutNanos) {
		int classes = StreamPriority.values().length;
		int[] limits = new int[classes];
		long[] borrowTimeouts = new long[classes];
		for (int i = 0; i < classes; i++) {
			limits[i] = Integer.MAX_VALUE;
			borrowTimeouts[i] = borrowTimeoutNanos;
		}
		return new LendingPool<>(new FreeItems(), initialSize, maxSize, limits, borrowTimeouts,
				LoggerFactory.getLogger(FreeItems.class), "free items");
	}

	@Override
	public List<Item> create(int classIndex, int count) {
		List<Item> made = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			made.add(new Item(classIndex));
		}
		return made;
	}

	@Override
	public void destroy(Item item) {
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
		ForkJoinPool.commonPool().execute(task);
	}

	@Override
	public RuntimeException closed() {
		return new IllegalStateException("The pool is shut down");
	}

	@Override
	public RuntimeException timedOut(int classIndex, long waitedNanos) {
		return new IllegalStateException("No item was free for " + waitedNanos + " ns");
	}

	@Override
	public RuntimeException deadlinePassed(int classIndex, long waitedNanos) {
		return new IllegalStateException("The deadline passed after " + waitedNanos + " ns");
	}

	@Override
	public RuntimeException interrupted(InterruptedException cause) {
		return new IllegalStateException("Interrupted while waiting for an item", cause);
	}

	/**
	 * An item that is nothing but its place in the pool.
	 */
	static final class Item extends Lendable {

		Item(int classIndex) {
			super(classIndex);
		}

	}

}
