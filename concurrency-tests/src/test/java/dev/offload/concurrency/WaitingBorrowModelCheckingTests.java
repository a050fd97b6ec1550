package dev.offload.concurrency;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.LincheckChecks;

/**
 * Lincheck's model checker over a borrow that waits for a stream, in the mode the build
 * names: the longest of the quick mode's checks.
 */
@Tag("stress")
class WaitingBorrowModelCheckingTests {

	@Test
	void waitingBorrowWhenModelCheckedShouldAlwaysBeWokenAndLinearizable() {
		LincheckChecks.run("waiting borrow, model checked", CheckMode.current());
	}

}
