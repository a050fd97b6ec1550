package dev.offload.concurrency.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import dev.offload.concurrency.CountingItems;
import dev.offload.internal.lending.LendingPool;

/**
 * {@link TwoBorrowersOneIdleStream} on the stream pool's lending algorithm alone: two
 * threads race for the one idle item of a {@link LendingPool} bounded at one; exactly one
 * gets it, the other finds the pool full.
 */
@JCStressTest
@Outcome(id = { "0, -1", "-1, 0" }, expect = Expect.ACCEPTABLE,
		desc = "One thread got the idle item, the other found the pool full")
@Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "The item was lent to both threads at once")
@Outcome(id = "-1, -1", expect = Expect.FORBIDDEN, desc = "Neither thread got the idle item")
@Outcome(expect = Expect.FORBIDDEN, desc = "An item that does not exist was lent")
@State
public class TwoBorrowersOneIdleItem {

	private final LendingPool<CountingItems.Item> pool = CountingItems.pool(new CountingItems(), 1,
			Pools.NO_WAIT.toNanos());

	/**
	 * Makes the one item and gives it back.
	 */
	public TwoBorrowersOneIdleItem() {
		this.pool.release(this.pool.borrow(0));
	}

	/**
	 * Borrows.
	 * @param result r1: the item's number, -1 if the pool was full
	 */
	@Actor
	public void first(II_Result result) {
		result.r1 = Pools.borrowId(this.pool, 0);
	}

	/**
	 * Borrows.
	 * @param result r2: the item's number, -1 if the pool was full
	 */
	@Actor
	public void second(II_Result result) {
		result.r2 = Pools.borrowId(this.pool, 0);
	}

}
