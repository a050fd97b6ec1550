package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import dev.offload.concurrency.CountingItems;
import dev.offload.internal.lending.LendingPool;

/**
 * A destroyed item's hint: the one item of a {@link LendingPool} bounded at one was
 * released and lent again on the fast path, so its hint in the class's stack is stale.
 * One thread discards it while another borrows, and the arbiter borrows once more. The
 * hint must never lend the destroyed item; its room goes to one new item.
 */
@JCStressTest
@Outcome(id = "-1, 1", expect = Expect.ACCEPTABLE,
		desc = "The borrower found the pool full before the discard; the arbiter got the replacement")
@Outcome(id = "1, -1", expect = Expect.ACCEPTABLE,
		desc = "The borrower got the replacement; the arbiter found the pool full")
@Outcome(id = { "0, -1", "0, 1", "-1, 0", "1, 0", "0, 0" }, expect = Expect.FORBIDDEN,
		desc = "The destroyed item was lent")
@Outcome(id = "-1, -1", expect = Expect.FORBIDDEN, desc = "The destroyed item's room was never given back")
@Outcome(expect = Expect.FORBIDDEN, desc = "An item was lent twice, or more items were made than the bound")
@State
public class DiscardRacesWithStaleHint {

	private final LendingPool<CountingItems.Item> pool = CountingItems.pool(new CountingItems(), 1,
			Pools.NO_WAIT.toNanos());

	private final CountingItems.Item item;

	/**
	 * Makes the one item, releases it and lends it again on this thread's fast path.
	 */
	public DiscardRacesWithStaleHint() {
		this.item = Pools.lendWithStaleHint(this.pool);
	}

	/**
	 * Discards the item.
	 */
	@Actor
	public void discarder() {
		this.pool.discard(this.item, () -> {
		});
	}

	/**
	 * Borrows.
	 * @param result r1: the item's number, -1 if the pool was full
	 */
	@Actor
	public void borrower(II_Result result) {
		result.r1 = Pools.borrowId(this.pool, 0);
	}

	/**
	 * Borrows once more.
	 * @param result r2: the item's number, -1 if the pool was full
	 */
	@Arbiter
	public void again(II_Result result) {
		result.r2 = Pools.borrowId(this.pool, 0);
	}

}
