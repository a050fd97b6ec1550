package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Growth off the borrowers' path: a borrower creates one batch at most, the rest of a
 * doubling is made on the completion executor, and a pool three quarters lent begins its
 * next doubling there ahead of the burst.
 */
class StreamPoolGrowthTests {

	private final LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();

	private DeviceRegistry registry;

	@AfterEach
	void tearDown() {
		if (this.registry != null) {
			this.registry.close(Duration.ZERO);
		}
	}

	private StreamPool pool(int initialSize) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(1).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(initialSize))
			.completionExecutor(this.held::add)
			.build();
		return this.registry.device(0).streamPool();
	}

	private void runHeld() {
		Runnable task;
		while ((task = this.held.poll()) != null) {
			task.run();
		}
	}

	@Test
	void aPoolThreeQuartersLentShouldBeginItsNextDoublingInTheBackground() {
		int initial = 2 * StreamPool.GROW_BATCH;
		StreamPool pool = pool(initial);
		List<PooledStream> lent = new ArrayList<>();
		lent.add(pool.borrow(StreamPriority.NORMAL));
		// The first borrow made one batch of the initial streams, the executor the rest.
		assertThat(pool.statistics().size()).isEqualTo(StreamPool.GROW_BATCH);
		runHeld();
		assertThat(pool.statistics().size()).isEqualTo(initial);
		while (lent.size() < initial * 3 / 4 - 1) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		assertThat(this.held).isEmpty();
		lent.add(pool.borrow(StreamPriority.NORMAL));
		// The borrow that reached three quarters created nothing itself.
		assertThat(pool.statistics().size()).isEqualTo(initial);
		assertThat(this.held).hasSize(1);
		runHeld();
		assertThat(pool.statistics().size()).isEqualTo(2 * initial);
		assertThat(pool.statistics().grows()).isEqualTo(1);
		lent.forEach(pool::release);
	}

	@Test
	void aBorrowerThatFindsNoStreamShouldCreateOneBatchAndLeaveTheRestToTheBackground() {
		int initial = 2 * StreamPool.GROW_BATCH;
		StreamPool pool = pool(initial);
		List<PooledStream> lent = new ArrayList<>();
		lent.add(pool.borrow(StreamPriority.NORMAL));
		runHeld();
		while (lent.size() < initial * 3 / 4) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		// The doubling begun ahead has not run: the pool runs dry.
		assertThat(this.held).hasSize(1);
		while (lent.size() < initial) {
			lent.add(pool.borrow(StreamPriority.NORMAL));
		}
		assertThat(pool.statistics().size()).isEqualTo(initial);
		lent.add(pool.borrow(StreamPriority.NORMAL));
		assertThat(pool.statistics().size()).isEqualTo(initial + StreamPool.GROW_BATCH);
		runHeld();
		assertThat(pool.statistics().size()).isEqualTo(2 * initial);
		lent.forEach(pool::release);
		assertThat(pool.statistics().inUse()).isZero();
	}

}
