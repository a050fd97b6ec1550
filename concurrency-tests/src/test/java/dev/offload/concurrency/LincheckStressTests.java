package dev.offload.concurrency;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.LincheckChecks;

/**
 * Lincheck's stress checks, in the mode the build names. Stress testing needs the
 * machine's cores for real races, so no other check runs beside these.
 */
@Tag("stress")
class LincheckStressTests {

	@Test
	void boundedPoolWhenStressedShouldBeLinearizable() {
		LincheckChecks.run("bounded pool, stressed", CheckMode.current());
	}

	@Test
	void boundedLendingPoolWhenStressedShouldBeLinearizable() {
		LincheckChecks.run("bounded lending pool, stressed", CheckMode.current());
	}

	@Test
	void waitingBorrowWhenStressedShouldAlwaysBeWokenAndLinearizable() {
		LincheckChecks.run("waiting borrow, stressed", CheckMode.current());
	}

	@Test
	void sessionsWhenStressedShouldBeLinearizable() {
		LincheckChecks.run("session life, stressed", CheckMode.current());
	}

}
