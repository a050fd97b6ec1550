package dev.offload.internal.memory;

import java.util.concurrent.TimeUnit;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import dev.offload.MemoryBudgetExceededException;

/**
 * A striped budget with one MiB left to admit, held, races a request for that MiB with
 * its release: the request gets it, at once or after waiting. The release puts the MiB on
 * its stripe's credit while nobody waits; the request reclaims every stripe's credit
 * before it waits and after it counted itself waiting, and a release that put credit on
 * its stripe looks at the count of waiters afterwards and gives the credit back. A missed
 * hand-over leaves the MiB idle on a stripe and the request waiting out its timeout, ten
 * seconds. In the core's package: the budget is not public.
 */
@JCStressTest
@Outcome(id = "0", expect = Expect.ACCEPTABLE, desc = "The request got the released MiB")
@Outcome(id = "-1", expect = Expect.FORBIDDEN,
		desc = "The request waited out its timeout while the MiB sat idle on a stripe")
@State
public class MemoryBudgetReleaseWakesWaiter {

	private final MemoryBudget budget = MemoryBudgetStates.fullExceptOneHeldMebibyte();

	/**
	 * Asks for the MiB, waiting up to ten seconds.
	 * @param result r1: 0 when admitted, -1 when the wait ran out
	 */
	@Actor
	public void request(I_Result result) {
		try {
			this.budget.acquire(MemoryBudgetStates.MIB, MemoryBudgetStates.NORMAL_PRIORITY,
					TimeUnit.SECONDS.toNanos(10), null);
			result.r1 = 0;
		}
		catch (MemoryBudgetExceededException ex) {
			result.r1 = -1;
		}
	}

	/**
	 * Releases the held MiB.
	 */
	@Actor
	public void release() {
		this.budget.release(MemoryBudgetStates.MIB);
	}

}
