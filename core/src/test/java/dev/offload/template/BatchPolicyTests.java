package dev.offload.template;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link BatchPolicy}: bounds named in errors, and how a batch is cut from the queue.
 */
class BatchPolicyTests {

	@Test
	void cutShouldTakeTheLargestPreferredSizeTheQueueFills() {
		BatchPolicy policy = BatchPolicy.DEFAULTS.withMaxBatchSize(64).withPreferredBatchSizes(32, 8);
		assertThat(policy.cut(40)).isEqualTo(32);
		assertThat(policy.cut(31)).isEqualTo(8);
		assertThat(policy.cut(100)).isEqualTo(32);
	}

	@Test
	void cutShouldTakeEverythingUpToTheMaximumWhenNoPreferredSizeFits() {
		BatchPolicy policy = BatchPolicy.DEFAULTS.withMaxBatchSize(64).withPreferredBatchSizes(32);
		assertThat(policy.cut(5)).isEqualTo(5);
		assertThat(BatchPolicy.DEFAULTS.cut(5000)).isEqualTo(1024);
	}

	@Test
	void preferredSizeAboveTheMaximumShouldBeRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BatchPolicy.DEFAULTS.withMaxBatchSize(16).withPreferredBatchSizes(32))
			.withMessageContaining("preferredBatchSizes must be from 1 to maxBatchSize (16)");
	}

	@Test
	void queueSmallerThanABatchShouldBeRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new BatchPolicy(16, List.of(), Duration.ZERO, 8))
			.withMessageContaining("maxQueue must be at least maxBatchSize (16), was 8");
	}

	@Test
	void negativeDelayShouldBeRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> BatchPolicy.DEFAULTS.withMaxDelay(Duration.ofMillis(-1)))
			.withMessageContaining("maxDelay must be zero or positive");
	}

}
