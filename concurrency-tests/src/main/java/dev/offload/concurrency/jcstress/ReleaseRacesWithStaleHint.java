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
 * The idle hints of a {@link LendingPool}: its one item, bounded at one, was released and
 * lent again on the fast path, so its hint in the class's stack is stale. One thread
 * releases it while another borrows, and may pop the stale hint before the release. The
 * item must then be found afterwards: the arbiter borrows an item of the other class,
 * which in the full pool can only replace the idle item, found by its hint alone (never
 * by a thread's fast path). Released and never found is the lost hint.
 */
@JCStressTest
@Outcome(id = "0, -1", expect = Expect.ACCEPTABLE,
		desc = "The borrower took the released item; the other class found the pool full")
@Outcome(id = "-1, 1", expect = Expect.ACCEPTABLE,
		desc = "The borrower looked before the release; the other class replaced the idle item")
@Outcome(id = "-1, -1", expect = Expect.FORBIDDEN,
		desc = "The item was idle, but no hint named it: nobody could find it")
@Outcome(id = "0, 1", expect = Expect.FORBIDDEN, desc = "The lent item was destroyed to make room")
@Outcome(expect = Expect.FORBIDDEN, desc = "An item that does not exist was lent")
@State
public class ReleaseRacesWithStaleHint {

	private final LendingPool<CountingItems.Item> pool = CountingItems.pool(new CountingItems(), 1,
			Pools.NO_WAIT.toNanos(), 2);

	private final CountingItems.Item item;

	/**
	 * Makes the one item, releases it and lends it again on this thread's fast path.
	 */
	public ReleaseRacesWithStaleHint() {
		this.item = Pools.lendWithStaleHint(this.pool);
	}

	/**
	 * Releases the item.
	 */
	@Actor
	public void releaser() {
		this.pool.release(this.item);
	}

	/**
	 * Borrows an item of the same class.
	 * @param result r1: the item's number, -1 if the pool was full
	 */
	@Actor
	public void borrower(II_Result result) {
		result.r1 = Pools.borrowId(this.pool, 0);
	}

	/**
	 * Borrows an item of the other class.
	 * @param result r2: the item's number, -1 if the pool was full
	 */
	@Arbiter
	public void otherClass(II_Result result) {
		result.r2 = Pools.borrowId(this.pool, 1);
	}

}
