package dev.offload.concurrency;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.LincheckChecks;

/**
 * Lincheck's model checker over the pool and over a session's life, in the mode the build
 * names (quick unless {@code -Dconcurrency.long=true}).
 */
@Tag("stress")
class StreamPoolModelCheckingTests {

	@Test
	void unboundedPoolWhenModelCheckedShouldBeLinearizable() {
		LincheckChecks.run("pool, model checked", CheckMode.current());
	}

	@Test
	void lendingPoolWhenModelCheckedShouldBeLinearizable() {
		LincheckChecks.run("lending pool, model checked", CheckMode.current());
	}

	@Test
	void sessionsWhenModelCheckedShouldBeLinearizable() {
		LincheckChecks.run("session life, model checked", CheckMode.current());
	}

}
