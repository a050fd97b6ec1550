package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full bounded pool with many waiting borrowers: one wake-up per stream given back,
 * waiters served in their order of arrival.
 */
class StreamPoolWaitersTests {

	private DeviceRegistry registry;

	@AfterEach
	void tearDown() {
		if (this.registry != null) {
			this.registry.close(Duration.ZERO);
		}
	}

	private StreamPool pool(int maxSize) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(1).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(maxSize)
				.withMaxSize(maxSize)
				.withBorrowTimeout(Duration.ofMinutes(5)))
			.build();
		return this.registry.device(0).streamPool();
	}

	@Test
	void eachReleaseShouldWakeOneWaiterInTheOrderTheyCame() throws Exception {
		StreamPool pool = pool(1);
		PooledStream held = pool.borrow(StreamPriority.NORMAL);
		int waiters = 500;
		Queue<Integer> served = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			int arrival = i;
			Thread thread = new Thread(() -> {
				PooledStream stream = pool.borrow(StreamPriority.NORMAL);
				served.add(arrival);
				pool.release(stream);
			}, "waiter-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
			// The next one starts once this one waits, so that the arrivals are ordered.
			Awaitility.await()
				.pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(1))
				.atMost(1, TimeUnit.MINUTES)
				.until(() -> pool.waiting() == arrival + 1 && thread.getState() == Thread.State.TIMED_WAITING);
		}
		pool.release(held);
		for (Thread thread : threads) {
			thread.join(TimeUnit.MINUTES.toMillis(1));
		}
		assertThat(served).hasSize(waiters);
		assertThat(new ArrayList<>(served)).isSorted();
		// Each waiter woke once, when handed its stream (a spurious wake-up of a parked
		// thread may add one now and then); a release that woke every waiter would make
		// it about waiters * waiters / 2.
		assertThat(pool.wakeUps()).isBetween((long) waiters, waiters + waiters / 10L);
		assertThat(pool.waiting()).isZero();
		assertThat(pool.inUse()).isZero();
	}

	@Test
	void aDiscardShouldWakeOneWaiterToReplaceTheStream() throws Exception {
		StreamPool pool = pool(1);
		PooledStream held = pool.borrow(StreamPriority.NORMAL);
		Queue<PooledStream> got = new ConcurrentLinkedQueue<>();
		Thread waiter = new Thread(() -> got.add(pool.borrow(StreamPriority.NORMAL)), "waiter");
		waiter.start();
		Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 1);
		pool.discard(held, new IllegalStateException("failed on purpose"));
		waiter.join(TimeUnit.MINUTES.toMillis(1));
		assertThat(got).hasSize(1).doesNotContain(held);
		pool.release(got.poll());
	}

	@Test
	void aWaiterOfTheOtherClassShouldGetTheRoomOfAReleasedStream() throws Exception {
		StreamPool pool = pool(1);
		PooledStream held = pool.borrow(StreamPriority.NORMAL);
		Queue<PooledStream> got = new ConcurrentLinkedQueue<>();
		Thread waiter = new Thread(() -> got.add(pool.borrow(StreamPriority.HIGH)), "high-waiter");
		waiter.start();
		Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 1);
		pool.release(held);
		waiter.join(TimeUnit.MINUTES.toMillis(1));
		assertThat(got).hasSize(1);
		assertThat(got.peek().priority).isEqualTo(StreamPriority.HIGH);
		pool.release(got.poll());
	}

}
