package dev.offload.internal.memory;

import dev.offload.MemoryBudgetExceededException;
import dev.offload.RoomFailures;

/**
 * Striped budgets of 1 GiB over 64 stripes (a lease is 2 MiB) for the budget's jcstress
 * tests.
 */
final class MemoryBudgetStates {

	static final long MIB = 1 << 20;

	/** The budget's normal priority class (not the high one). */
	static final boolean NORMAL_PRIORITY = false;

	private static final long BUDGET = 1024 * MIB;

	private MemoryBudgetStates() {
	}

	/**
	 * Returns a striped budget with all but one MiB held outside the stripes.
	 */
	static MemoryBudget fullExceptOneFreeMebibyte() {
		MemoryBudget budget = new MemoryBudget(0, BUDGET, BUDGET, 64, true, RoomFailures.memory());
		budget.acquire(BUDGET - MIB, NORMAL_PRIORITY, 0, null);
		return budget;
	}

	/**
	 * Returns a striped budget whose last MiB is held too, with no stripe's credit.
	 */
	static MemoryBudget fullExceptOneHeldMebibyte() {
		MemoryBudget budget = fullExceptOneFreeMebibyte();
		budget.acquire(MIB, NORMAL_PRIORITY, 0, null);
		return budget;
	}

	/**
	 * Asks for a MiB with no time to wait.
	 * @return 1 when admitted, 0 when refused
	 */
	static int admittedAtOnce(MemoryBudget budget) {
		try {
			budget.acquire(MIB, NORMAL_PRIORITY, 0, null);
			return 1;
		}
		catch (MemoryBudgetExceededException ex) {
			return 0;
		}
	}

}
