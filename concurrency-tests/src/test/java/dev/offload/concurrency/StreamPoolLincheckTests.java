package dev.offload.concurrency;

import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;
import dev.offload.concurrency.lincheck.StreamPoolLinearizability;
import dev.offload.concurrency.lincheck.StreamPoolWaitLinearizability;

class StreamPoolLincheckTests {

	@Test
	void unboundedPoolWhenModelCheckedShouldBeLinearizable() {
		CheckMode.current()
			.modelChecking(3, 3)
			.sequentialSpecification(StreamPoolLinearizability.Unbounded.Specification.class)
			.check(StreamPoolLinearizability.Unbounded.class);
	}

	@Test
	void boundedPoolWhenStressedShouldBeLinearizable() {
		CheckMode.current()
			.stress(3, 4)
			.sequentialSpecification(StreamPoolLinearizability.Bounded.Specification.class)
			.check(StreamPoolLinearizability.Bounded.class);
	}

	@Test
	void waitingBorrowWhenModelCheckedShouldAlwaysBeWokenAndLinearizable() {
		CheckMode.current()
			.modelChecking(3, 2)
			.sequentialSpecification(StreamPoolWaitLinearizability.Specification.class)
			.check(StreamPoolWaitLinearizability.class);
	}

	@Test
	void waitingBorrowWhenStressedShouldAlwaysBeWokenAndLinearizable() {
		CheckMode.current()
			.stress(3, 3)
			.sequentialSpecification(StreamPoolWaitLinearizability.Specification.class)
			.check(StreamPoolWaitLinearizability.class);
	}

}
