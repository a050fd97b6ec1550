package dev.offload.concurrency.lincheck;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;

import dev.offload.concurrency.CountingItems;
import dev.offload.internal.lending.LendingCensus;
import dev.offload.internal.lending.LendingPool;

/**
 * A Lincheck check of the stream pool's lending algorithm directly: a {@link LendingPool}
 * over {@link CountingItems}, without a device or sessions. Borrow, release, discard,
 * growth, a bounded pool's timeout and shutdown, against the same sequential model as
 * {@link StreamPoolLinearizability} (the pool's behaviour is the same with or without the
 * device around it). Each thread keeps the items it holds; an item lent twice at once is
 * reported as {@link Outcome#LENT_TWICE}. At quiescence {@link #accountingIsExact()}
 * checks the pool's counts against the items' own, and that a borrower finds every idle
 * item.
 * <p>
 * The pool's first borrow makes one item. {@link Bounded} holds at most
 * {@value StreamPoolLinearizability#MAX_SIZE} with a borrow timeout of one nanosecond,
 * for the stress runs; the model checker freezes the clock, under which a timeout never
 * expires, so it checks {@link Unbounded}.
 */
public abstract class LendingPoolLinearizability {

	private final CountingItems items = new CountingItems();

	private final LendingPool<CountingItems.Item> pool;

	@SuppressWarnings("unchecked")
	private final ArrayDeque<CountingItems.Item>[] held = new ArrayDeque[StreamPoolLinearizability.MAX_THREADS];

	private final Set<CountingItems.Item> lent = ConcurrentHashMap.newKeySet();

	LendingPoolLinearizability(int maxSize) {
		this.pool = CountingItems.pool(this.items, maxSize, 1);
		for (int i = 0; i < this.held.length; i++) {
			this.held[i] = new ArrayDeque<>();
		}
	}

	/**
	 * Borrows an item.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#LENT}, {@link Outcome#TIMED_OUT} or {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome borrow(@Param(gen = ThreadIdGen.class) int thread) {
		CountingItems.Item item;
		try {
			item = this.pool.borrow(0);
		}
		catch (CountingItems.TimedOut ex) {
			return Outcome.TIMED_OUT;
		}
		catch (CountingItems.Refused ex) {
			return Outcome.REFUSED;
		}
		if (!this.lent.add(item)) {
			return Outcome.LENT_TWICE;
		}
		this.held[thread].push(item);
		return Outcome.LENT;
	}

	/**
	 * Gives the calling thread's latest item back.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#RELEASED} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome release(@Param(gen = ThreadIdGen.class) int thread) {
		CountingItems.Item item = giveUp(thread);
		if (item == null) {
			return Outcome.NOTHING_HELD;
		}
		this.pool.release(item);
		return Outcome.RELEASED;
	}

	/**
	 * Discards the calling thread's latest item, so that the pool destroys it.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#DISCARDED} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome discard(@Param(gen = ThreadIdGen.class) int thread) {
		CountingItems.Item item = giveUp(thread);
		if (item == null) {
			return Outcome.NOTHING_HELD;
		}
		this.pool.discard(item, () -> {
		});
		return Outcome.DISCARDED;
	}

	/**
	 * Shuts the pool down without waiting for lent items.
	 * @return {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome shutdown() {
		this.pool.shutdown(0);
		return Outcome.REFUSED;
	}

	/**
	 * Takes the thread's latest item out of the lent set before it is given back: once
	 * back, it may be lent again at once.
	 */
	private CountingItems.Item giveUp(int thread) {
		CountingItems.Item item = this.held[thread].poll();
		if (item != null) {
			this.lent.remove(item);
		}
		return item;
	}

	/**
	 * Checks, with no operation running, that the pool's counts agree with the items' and
	 * with what the threads hold: {@code created - destroyed == idle + inUse}, nothing
	 * destroyed twice, no held item destroyed, no idle item after shutdown.
	 */
	@Validate
	public void accountingIsExact() {
		LendingCensus census = this.pool.census();
		int heldNow = 0;
		for (ArrayDeque<CountingItems.Item> items : this.held) {
			heldNow += items.size();
			for (CountingItems.Item item : items) {
				require(!item.isDestroyed(), "a held item was destroyed");
			}
		}
		require(this.pool.created() - this.pool.destroyed() == census.idle() + census.inUse(),
				"created - destroyed != idle + inUse");
		require(census.inUse() == heldNow, "inUse != items held (" + heldNow + ")");
		require(this.items.created() == this.pool.created(), "the items made " + this.items.created());
		require(this.items.destroyed() == this.pool.destroyed(), "the items destroyed " + this.items.destroyed());
		require(this.items.misuses() == 0, this.items.misuses() + " item(s) destroyed twice");
		require(!this.pool.isClosed() || census.idle() == 0, "idle items after shutdown");
		idleItemsCanBeFound(census.idle());
	}

	/**
	 * Borrows as many items as are idle, each of which must be found without the pool
	 * making one (a borrower that does not find an idle item makes one, or in a full pool
	 * times out), and gives them back: an idle item that no borrower can find is lost.
	 */
	private void idleItemsCanBeFound(int idle) {
		if (this.pool.isClosed()) {
			return;
		}
		long created = this.pool.created();
		List<CountingItems.Item> found = new ArrayList<>(idle);
		try {
			for (int i = 0; i < idle; i++) {
				CountingItems.Item item = this.pool.borrow(0);
				require(!this.lent.contains(item) && !found.contains(item) && !item.isDestroyed(),
						item + " was lent while held or destroyed");
				found.add(item);
			}
		}
		catch (CountingItems.TimedOut ex) {
			throw new IllegalStateException("An idle item could not be found: " + this.pool, ex);
		}
		require(this.pool.created() == created, "an idle item could not be found, one was made");
		found.forEach(this.pool::release);
	}

	private void require(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException(what + ": " + this.pool);
		}
	}

	/**
	 * The pool bounded at {@value StreamPoolLinearizability#MAX_SIZE} items, checked by
	 * stress runs.
	 */
	public static class Bounded extends LendingPoolLinearizability {

		/**
		 * Creates the pool under test.
		 */
		public Bounded() {
			super(StreamPoolLinearizability.MAX_SIZE);
		}

	}

	/**
	 * The unbounded pool, checked by the model checker.
	 */
	public static class Unbounded extends LendingPoolLinearizability {

		/**
		 * Creates the pool under test.
		 */
		public Unbounded() {
			super(0);
		}

	}

}
