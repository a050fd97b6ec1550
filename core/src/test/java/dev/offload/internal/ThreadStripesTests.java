package dev.offload.internal;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ThreadStripes}: the number of stripes, and threads started one after another (as
 * a pool starts its workers) each on a stripe of its own.
 */
class ThreadStripesTests {

	@Test
	void stripesShouldBeFourPerProcessorAsAPowerOfTwoFromFourToSixtyFour() {
		assertThat(ThreadStripes.stripes(1)).isEqualTo(4);
		assertThat(ThreadStripes.stripes(2)).isEqualTo(8);
		assertThat(ThreadStripes.stripes(3)).isEqualTo(16);
		assertThat(ThreadStripes.stripes(16)).isEqualTo(64);
		assertThat(ThreadStripes.stripes(192)).isEqualTo(64);
	}

	@Test
	void asManyThreadsAsProcessorsWithConsecutiveIdsShouldEachHaveAStripeOfTheirOwn() {
		for (int processors = 1; processors <= 16; processors++) {
			int stripes = ThreadStripes.stripes(processors);
			for (long first = 1; first <= 20_000; first++) {
				Set<Integer> taken = new HashSet<>();
				for (long id = first; id < first + processors; id++) {
					taken.add(ThreadStripes.stripe(id, stripes));
				}
				assertThat(taken).as("%d threads from id %d on %d stripes", processors, first, stripes)
					.hasSize(processors);
			}
		}
	}

	@Test
	void aStripeShouldBeWithinItsRange() {
		for (long id = 0; id < 10_000; id++) {
			assertThat(ThreadStripes.stripe(id, 64)).isBetween(0, 63);
			assertThat(ThreadStripes.stripe(-id, 4)).isBetween(0, 3);
			assertThat(ThreadStripes.stripe(id, 1)).isZero();
		}
	}

}
