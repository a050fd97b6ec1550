package dev.offload.concurrency;

import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.SessionLifeLinearizability;

class SessionLifeLincheckTests {

	@Test
	void sessionsWhenModelCheckedShouldBeLinearizable() {
		CheckMode.current()
			.modelChecking(3, 3)
			.sequentialSpecification(SessionLifeLinearizability.Specification.class)
			.check(SessionLifeLinearizability.class);
	}

	@Test
	void sessionsWhenStressedShouldBeLinearizable() {
		CheckMode.current()
			.stress(3, 4)
			.sequentialSpecification(SessionLifeLinearizability.Specification.class)
			.check(SessionLifeLinearizability.class);
	}

}
