package dev.offload.sample.web;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ClientShares}: one client alone uses every slot, a second one refused
 * makes the first give slots up as its jobs end, and the second then gets its turn.
 */
class ClientSharesTests {

	private final MonteCarloJobsTests.MutableClock clock = new MonteCarloJobsTests.MutableClock();

	private final ClientShares shares = new ClientShares(4, Duration.ofSeconds(5), this.clock);

	@Test
	void clientAloneShouldUseEverySlotButNoMore() {
		for (int i = 0; i < 4; i++) {
			assertThat(this.shares.tryAcquire("greedy")).isTrue();
		}
		assertThat(this.shares.tryAcquire("greedy")).isFalse();
	}

	@Test
	void clientHonouringRetryAfterShouldGetItsTurnAsTheGreedyClientsJobsEnd() {
		for (int i = 0; i < 4; i++) {
			assertThat(this.shares.tryAcquire("greedy")).isTrue();
		}
		assertThat(this.shares.tryAcquire("polite")).isFalse();
		// The greedy client retries at once each time one of its jobs ends; the polite
		// one a second later.
		this.shares.release("greedy");
		assertThat(this.shares.tryAcquire("greedy")).isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.shares.tryAcquire("polite")).isTrue();
		this.shares.release("greedy");
		assertThat(this.shares.tryAcquire("greedy")).isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.shares.tryAcquire("polite")).isTrue();
		assertThat(this.shares.held("greedy")).isEqualTo(2);
		assertThat(this.shares.held("polite")).isEqualTo(2);
	}

	@Test
	void clientThatStoppedAskingShouldNoLongerCount() {
		for (int i = 0; i < 4; i++) {
			assertThat(this.shares.tryAcquire("greedy")).isTrue();
		}
		assertThat(this.shares.tryAcquire("gone")).isFalse();
		this.shares.release("greedy");
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(this.shares.tryAcquire("greedy")).isTrue();
	}

	@Test
	void refusedClientsShouldBeRememberedUpToABound() {
		for (int i = 0; i < 4; i++) {
			this.shares.tryAcquire("greedy");
		}
		for (int i = 0; i < ClientShares.MAX_WAITING + 100; i++) {
			assertThat(this.shares.tryAcquire("client " + i)).isFalse();
		}
		this.shares.release("greedy");
		// 10,001 contenders for 4 slots: a share of 1, which the greedy client exceeds.
		assertThat(this.shares.tryAcquire("greedy")).isFalse();
	}

	@Test
	void releaseWithoutASlotShouldFail() {
		assertThatIllegalStateException().isThrownBy(() -> this.shares.release("nobody"))
			.withMessageContaining("nobody");
	}

}
