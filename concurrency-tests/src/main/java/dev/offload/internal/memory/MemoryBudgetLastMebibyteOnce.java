package dev.offload.internal.memory;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two requests race for the last MiB of a striped budget, with no time to wait: exactly
 * one is admitted. Neither stripe has credit, and a lease does not fit: the bound is the
 * reservation's compare-and-set. In the core's package: the budget is not public.
 */
@JCStressTest
@Outcome(id = { "1, 0", "0, 1" }, expect = Expect.ACCEPTABLE, desc = "One request got the MiB")
@Outcome(id = "1, 1", expect = Expect.FORBIDDEN, desc = "Both were admitted: the budget was exceeded")
@Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "Both were refused with a MiB free")
@State
public class MemoryBudgetLastMebibyteOnce {

	private final MemoryBudget budget = MemoryBudgetStates.fullExceptOneFreeMebibyte();

	/**
	 * Asks for the MiB.
	 * @param result r1: 1 when admitted, 0 when refused
	 */
	@Actor
	public void first(II_Result result) {
		result.r1 = MemoryBudgetStates.admittedAtOnce(this.budget);
	}

	/**
	 * Asks for the MiB.
	 * @param result r2: 1 when admitted, 0 when refused
	 */
	@Actor
	public void second(II_Result result) {
		result.r2 = MemoryBudgetStates.admittedAtOnce(this.budget);
	}

}
