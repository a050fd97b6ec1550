package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for lanes (per priority class limits) and for the pool's saturation signals.
 */
class StreamPoolLaneTests {

	private DeviceRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close(Duration.ZERO);
			// A registry closed with streams still lent leaves its backend open: stop its
			// workers here.
			this.registry.backend().close();
		}
	}

	private StreamPool pool(StreamPoolConfig config) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(config)
			.build();
		return this.registry.device(0).streamPool();
	}

	@Test
	void borrowWhenItsLaneIsFullShouldFailAfterTheLaneTimeoutWhileTheOtherLaneLends() {
		StreamPool pool = pool(new StreamPoolConfig(1, 3, Duration.ofMinutes(1)).withLane(StreamPriority.NORMAL, 2,
				Duration.ofMillis(50)));
		pool.borrow(StreamPriority.NORMAL);
		pool.borrow(StreamPriority.NORMAL);
		assertThatExceptionOfType(StreamBorrowTimeoutException.class)
			.isThrownBy(() -> pool.borrow(StreamPriority.NORMAL))
			.withMessageContaining("NORMAL lane 2/2 lent");
		PooledStream high = pool.borrow(StreamPriority.HIGH);
		assertThat(high.priority).isEqualTo(StreamPriority.HIGH);
		StreamPoolStatistics statistics = pool.statistics();
		assertThat(statistics.byPriority().get(StreamPriority.NORMAL).size()).isEqualTo(2);
		assertThat(statistics.timeouts()).isEqualTo(1);
	}

	@Test
	void fullLaneShouldNotTakeAnIdleStreamOfTheOtherClassInAFullPool() {
		StreamPool pool = pool(new StreamPoolConfig(1, 3, Duration.ofMinutes(1)).withLane(StreamPriority.NORMAL, 2,
				Duration.ofMillis(50)));
		pool.release(pool.borrow(StreamPriority.HIGH));
		pool.borrow(StreamPriority.NORMAL);
		pool.borrow(StreamPriority.NORMAL);
		assertThatExceptionOfType(StreamBorrowTimeoutException.class)
			.isThrownBy(() -> pool.borrow(StreamPriority.NORMAL));
		assertThat(pool.statistics().byPriority().get(StreamPriority.NORMAL).size()).isEqualTo(2);
		assertThat(pool.statistics().byPriority().get(StreamPriority.HIGH).idle()).isOne();
	}

	@Test
	void laneShouldNotCreateMoreStreamsThanItsLimitEvenWhenTheInitialSizeIsLarger() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withLane(StreamPriority.HIGH, 4, null));
		pool.borrow(StreamPriority.HIGH);
		pool.borrow(StreamPriority.NORMAL);
		assertThat(pool.statistics().byPriority().get(StreamPriority.HIGH).size()).isEqualTo(4);
		assertThat(pool.statistics().byPriority().get(StreamPriority.NORMAL).size())
			.isEqualTo(StreamPoolConfig.DEFAULT_INITIAL_SIZE);
	}

	@Test
	void borrowerWaitingForItsLaneShouldShowAsSaturationAndGetTheNextStreamOfItsLane() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withLane(StreamPriority.NORMAL, 1, Duration.ofMinutes(1)));
		PooledStream first = pool.borrow(StreamPriority.NORMAL);
		assertThat(pool.isSaturated()).isFalse();
		assertThat(pool.oldestWait()).isZero();
		CompletableFuture<PooledStream> second = CompletableFuture
			.supplyAsync(() -> pool.borrow(StreamPriority.NORMAL));
		await().atMost(Duration.ofSeconds(30)).until(pool::isSaturated);
		StreamPoolStatistics statistics = pool.statistics();
		assertThat(statistics.waiting()).isEqualTo(1);
		assertThat(statistics.oldestWait()).isPositive();
		assertThat(pool.device().isSaturated()).isTrue();
		pool.release(first);
		assertThat(second.join()).isSameAs(first);
		assertThat(pool.isSaturated()).isFalse();
		assertThat(pool.oldestWait()).isZero();
	}

	@Test
	void laneSettingsOutOfBoundsShouldBeRejectedNamingTheSetting() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> StreamPoolConfig.DEFAULTS.withLane(StreamPriority.HIGH, 0, null))
			.withMessage("lanes.HIGH.maxSessions must be at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> StreamPoolConfig.DEFAULTS.withLane(StreamPriority.NORMAL, 1, Duration.ZERO))
			.withMessageStartingWith("lanes.NORMAL.borrowTimeout must be positive");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(
					() -> new StreamPoolConfig(1, 8, Duration.ofSeconds(1)).withLane(StreamPriority.NORMAL, 9, null))
			.withMessage("lanes.NORMAL.maxSessions must be at most maxSize (8), was 9");
	}

}
