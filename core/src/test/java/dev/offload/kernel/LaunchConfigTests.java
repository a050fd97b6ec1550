package dev.offload.kernel;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LaunchConfig}'s geometry from a thread count: enough blocks, and a clear refusal
 * where no grid holds the threads.
 */
class LaunchConfigTests {

	@Test
	void forThreadsShouldRoundUpToWholeBlocks() {
		assertThat(LaunchConfig.forThreads(1, 256).gridX()).isOne();
		assertThat(LaunchConfig.forThreads(256, 256).gridX()).isOne();
		assertThat(LaunchConfig.forThreads(257, 256).gridX()).isEqualTo(2);
		assertThat(LaunchConfig.forThreads((long) Integer.MAX_VALUE * 1024, 1024).gridX()).isEqualTo(Integer.MAX_VALUE);
	}

	@Test
	void forThreadsBeyondAnyGridShouldBeRefusedNotWrapped() {
		for (long threads : new long[] { Long.MAX_VALUE, Long.MAX_VALUE - 100, (long) Integer.MAX_VALUE * 256 + 1 }) {
			assertThatIllegalArgumentException().isThrownBy(() -> LaunchConfig.forThreads(threads, 256))
				.withMessageContaining("need more than 2^31-1 blocks");
		}
	}

}
