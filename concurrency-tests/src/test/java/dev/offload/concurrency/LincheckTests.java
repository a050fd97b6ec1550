package dev.offload.concurrency;

import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.LincheckChecks;

/**
 * Each Lincheck check in the mode the build names (quick unless
 * {@code -Dconcurrency.long=true}).
 */
class LincheckTests {

	@Test
	void unboundedPoolWhenModelCheckedShouldBeLinearizable() {
		LincheckChecks.run("pool, model checked", CheckMode.current());
	}

	@Test
	void boundedPoolWhenStressedShouldBeLinearizable() {
		LincheckChecks.run("bounded pool, stressed", CheckMode.current());
	}

	@Test
	void waitingBorrowWhenModelCheckedShouldAlwaysBeWokenAndLinearizable() {
		LincheckChecks.run("waiting borrow, model checked", CheckMode.current());
	}

	@Test
	void waitingBorrowWhenStressedShouldAlwaysBeWokenAndLinearizable() {
		LincheckChecks.run("waiting borrow, stressed", CheckMode.current());
	}

	@Test
	void sessionsWhenModelCheckedShouldBeLinearizable() {
		LincheckChecks.run("session life, model checked", CheckMode.current());
	}

	@Test
	void sessionsWhenStressedShouldBeLinearizable() {
		LincheckChecks.run("session life, stressed", CheckMode.current());
	}

}
