package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class StreamPoolTests {

	private DeviceRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close(Duration.ZERO);
		}
	}

	private StreamPool pool(StreamPoolConfig config) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(config)
			.build();
		return this.registry.device(0).streamPool();
	}

	@Test
	void poolWhenNeverBorrowedShouldCreateNothing() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS);
		assertThat(pool.statistics().created()).isZero();
		assertThat(pool.statistics().size()).isZero();
	}

	@Test
	void borrowWhenEmptyShouldCreateInitialSizeThenDouble() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(4));
		List<PooledStream> lent = new ArrayList<>();
		lent.add(pool.borrow(StreamPriority.NORMAL));
		assertThat(pool.statistics().size()).isEqualTo(4);
		assertThat(pool.statistics().grows()).isZero();
		for (int i = 1; i < 4; i++) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		assertThat(pool.statistics().size()).isEqualTo(4);
		lent.add(pool.borrow(StreamPriority.NORMAL));
		assertThat(pool.statistics().size()).isEqualTo(8);
		assertThat(pool.statistics().grows()).isEqualTo(1);
		for (int i = 5; i < 9; i++) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		assertThat(pool.statistics().size()).isEqualTo(16);
		assertThat(pool.statistics().grows()).isEqualTo(2);
		assertThat(pool.statistics().inUse()).isEqualTo(9);
		assertThat(pool.statistics().peakInUse()).isEqualTo(9);
		lent.forEach(pool::release);
		assertThat(pool.statistics().idle()).isEqualTo(16);
		assertThat(pool.statistics().borrows()).isEqualTo(9);
	}

	@Test
	void borrowWhenBoundedShouldStopGrowingAtMaxSize() {
		StreamPool pool = pool(new StreamPoolConfig(4, 6, Duration.ofMillis(50)));
		List<PooledStream> lent = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		assertThat(pool.statistics().size()).isEqualTo(6);
		assertThatExceptionOfType(StreamBorrowTimeoutException.class)
			.isThrownBy(() -> pool.borrow(StreamPriority.NORMAL))
			.withMessageStartingWith("Stream pool of device 0 - no stream available, request timed out after")
			.withMessageContaining("(size=6, max=6, inUse=6, idle=0, waiting=1)");
		assertThat(pool.statistics().timeouts()).isEqualTo(1);
		assertThat(pool.statistics().waiting()).isZero();
		lent.forEach(pool::release);
	}

	@Test
	void borrowWhenBoundedAndFullShouldTakeStreamReleasedWhileWaiting() throws Exception {
		StreamPool pool = pool(new StreamPoolConfig(1, 1, Duration.ofSeconds(30)));
		PooledStream first = pool.borrow(StreamPriority.NORMAL);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<PooledStream> waiter = executor.submit(() -> pool.borrow(StreamPriority.NORMAL));
			org.awaitility.Awaitility.await().until(() -> pool.waiting() == 1);
			pool.release(first);
			PooledStream second = waiter.get();
			assertThat(second).isSameAs(first);
			pool.release(second);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void discardShouldDestroyStreamAndReplaceItWithoutDoubling() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		PooledStream a = pool.borrow(StreamPriority.NORMAL);
		PooledStream b = pool.borrow(StreamPriority.NORMAL);
		pool.discard(a, new IllegalStateException("failed work"));
		assertThat(pool.statistics().discarded()).isEqualTo(1);
		assertThat(pool.statistics().size()).isEqualTo(1);
		PooledStream c = pool.borrow(StreamPriority.NORMAL);
		assertThat(c).isNotSameAs(a);
		assertThat(pool.statistics().size()).isEqualTo(2);
		assertThat(pool.statistics().grows()).isZero();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> pool.release(a))
			.withMessageContaining("is not lent");
		pool.release(b);
		pool.release(c);
		StreamPoolStatistics stats = pool.statistics();
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
	}

	@Test
	void releaseWhenNotLentShouldFail() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS);
		PooledStream stream = pool.borrow(StreamPriority.NORMAL);
		pool.release(stream);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> pool.release(stream))
			.withMessageContaining("of device 0 is not lent");
	}

	@Test
	void priorityClassesShouldHaveTheirOwnStreams() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		PooledStream normal = pool.borrow(StreamPriority.NORMAL);
		PooledStream high = pool.borrow(StreamPriority.HIGH);
		assertThat(high.priority).isEqualTo(StreamPriority.HIGH);
		assertThat(normal.priority).isEqualTo(StreamPriority.NORMAL);
		StreamPoolStatistics stats = pool.statistics();
		assertThat(stats.size()).isEqualTo(4);
		assertThat(stats.byPriority().get(StreamPriority.HIGH))
			.isEqualTo(new StreamPoolStatistics.PriorityStatistics(2, 1, 1));
		pool.release(normal);
		pool.release(high);
	}

	@Test
	void shutdownShouldRefuseBorrowsAndDestroyOnlyReturnedStreams() {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(3));
		PooledStream lent = pool.borrow(StreamPriority.NORMAL);
		assertThat(pool.shutdown(Duration.ZERO)).isFalse();
		assertThat(pool.statistics().destroyed()).isEqualTo(2);
		assertThat(pool.statistics().size()).isEqualTo(1);
		assertThatExceptionOfType(StreamPoolClosedException.class).isThrownBy(() -> pool.borrow(StreamPriority.NORMAL))
			.withMessage("The stream pool of device 0 is shut down and lends no more streams");
		pool.release(lent);
		assertThat(pool.statistics().destroyed()).isEqualTo(3);
		assertThat(pool.statistics().size()).isZero();
	}

	@Test
	void shutdownShouldWaitForLentStreams() throws Exception {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(1));
		PooledStream lent = pool.borrow(StreamPriority.NORMAL);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> shutdown = executor.submit(() -> pool.shutdown(Duration.ofSeconds(30)));
			org.awaitility.Awaitility.await().until(pool::isClosed);
			assertThat(shutdown).isNotDone();
			assertThat(pool.statistics().destroyed()).isZero();
			pool.release(lent);
			assertThat(shutdown.get()).isTrue();
			assertThat(pool.statistics().destroyed()).isEqualTo(1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void concurrentBorrowAndReleaseShouldNeverLendAStreamTwice() throws Exception {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS.withInitialSize(4));
		int threads = 16;
		int iterations = 100_000;
		ConcurrentHashMap<PooledStream, AtomicBoolean> holders = new ConcurrentHashMap<>();
		AtomicInteger doubleLends = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					TestKernels.await(start);
					for (int i = 0; i < iterations; i++) {
						PooledStream stream = pool.borrow(StreamPriority.NORMAL);
						AtomicBoolean held = holders.computeIfAbsent(stream, (key) -> new AtomicBoolean());
						if (!held.compareAndSet(false, true)) {
							doubleLends.incrementAndGet();
						}
						held.set(false);
						pool.release(stream);
					}
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		StreamPoolStatistics stats = pool.statistics();
		assertThat(doubleLends).hasValue(0);
		assertThat(stats.borrows()).isEqualTo((long) threads * iterations);
		assertThat(stats.inUse()).isZero();
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
		// Growth follows the doubling rule: 4, 8, 16 - never more than the 16 threads
		// need.
		assertThat(stats.size()).isIn(4, 8, 16);
		assertThat(stats.grows()).isEqualTo(Integer.numberOfTrailingZeros(stats.size() / 4));
		assertThat(stats.peakInUse()).isLessThanOrEqualTo(threads);
	}

	@ParameterizedTest
	@EnumSource(StreamPriority.class)
	void borrowWhenBoundedPoolIsFullOfIdleStreamsOfTheOtherClassShouldReplaceOneWithoutWaiting(StreamPriority asked) {
		StreamPriority other = otherThan(asked);
		// initial-size == max-size: the first class borrowed fills the pool (a HikariCP
		// habit).
		StreamPool pool = pool(new StreamPoolConfig(2, 2, Duration.ofSeconds(2)));
		pool.release(pool.borrow(other));
		assertThat(pool.statistics().byPriority().get(other))
			.isEqualTo(new StreamPoolStatistics.PriorityStatistics(2, 0, 2));
		PooledStream stream = pool.borrow(asked);
		assertThat(stream.priority).isEqualTo(asked);
		StreamPoolStatistics stats = pool.statistics();
		assertThat(stats.timeouts()).isZero();
		assertThat(stats.size()).isEqualTo(2);
		assertThat(stats.byPriority().get(asked)).isEqualTo(new StreamPoolStatistics.PriorityStatistics(1, 1, 0));
		assertThat(stats.byPriority().get(other)).isEqualTo(new StreamPoolStatistics.PriorityStatistics(1, 0, 1));
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
		// And back: once it is idle, the other class takes the room of the stream made
		// for this one.
		pool.release(stream);
		PooledStream first = pool.borrow(other);
		PooledStream second = pool.borrow(other);
		assertThat(List.of(first.priority, second.priority)).containsOnly(other);
		assertThat(pool.statistics().size()).isEqualTo(2);
		assertThat(pool.statistics().byPriority()).doesNotContainKey(asked);
		pool.release(first);
		pool.release(second);
		assertThat(pool.statistics().timeouts()).isZero();
	}

	@ParameterizedTest
	@EnumSource(StreamPriority.class)
	void borrowWhenBoundedPoolIsFullAndWaitingShouldTakeTheRoomOfAReleasedStreamOfTheOtherClass(StreamPriority asked)
			throws Exception {
		StreamPriority other = otherThan(asked);
		StreamPool pool = pool(new StreamPoolConfig(2, 2, Duration.ofSeconds(10)));
		PooledStream a = pool.borrow(other);
		PooledStream b = pool.borrow(other);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<PooledStream> waiter = executor.submit(() -> pool.borrow(asked));
			Awaitility.await().until(() -> pool.waiting() == 1);
			pool.release(a);
			PooledStream stream = waiter.get();
			assertThat(stream.priority).isEqualTo(asked);
			assertThat(pool.statistics().timeouts()).isZero();
			pool.release(stream);
			pool.release(b);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void borrowWhenBoundedPoolHasNoIdleStreamOfAnyClassShouldTimeOut() {
		StreamPool pool = pool(new StreamPoolConfig(1, 2, Duration.ofMillis(50)));
		PooledStream normal = pool.borrow(StreamPriority.NORMAL);
		PooledStream high = pool.borrow(StreamPriority.HIGH);
		assertThatExceptionOfType(StreamBorrowTimeoutException.class).isThrownBy(() -> pool.borrow(StreamPriority.HIGH))
			.withMessageContaining("(size=2, max=2, inUse=2, idle=0, waiting=1)");
		pool.release(normal);
		pool.release(high);
	}

	@Test
	void peakInUseWhenManyThreadsHoldStreamsAtOnceShouldCountThemAll() throws Exception {
		StreamPool pool = pool(StreamPoolConfig.DEFAULTS);
		int threads = 64;
		CountDownLatch held = new CountDownLatch(threads);
		CountDownLatch release = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					PooledStream stream = pool.borrow(StreamPriority.NORMAL);
					held.countDown();
					TestKernels.await(release);
					pool.release(stream);
				}));
			}
			TestKernels.await(held);
			// No statistics are read while the streams are held: the peak must come from
			// the borrows themselves.
			release.countDown();
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		StreamPoolStatistics stats = pool.statistics();
		assertThat(stats.inUse()).isZero();
		assertThat(stats.peakInUse()).isEqualTo(threads);
	}

	private static StreamPriority otherThan(StreamPriority priority) {
		return (priority == StreamPriority.HIGH) ? StreamPriority.NORMAL : StreamPriority.HIGH;
	}

	@Test
	void configWhenOutOfRangeShouldNameTheValue() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new StreamPoolConfig(0, 0, Duration.ofSeconds(1)))
			.withMessage("initialSize must be at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new StreamPoolConfig(32, 8, Duration.ofSeconds(1)))
			.withMessage("maxSize must be 0 (unbounded) or at least initialSize (32), was 8");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new StreamPoolConfig(1, -1, Duration.ofSeconds(1)))
			.withMessage("maxSize must be 0 (unbounded) or positive, was -1");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new StreamPoolConfig(1, 0, Duration.ZERO))
			.withMessage("borrowTimeout must be positive, was PT0S");
	}

}
