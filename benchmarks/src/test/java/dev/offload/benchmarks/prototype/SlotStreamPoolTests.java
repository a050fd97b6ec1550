package dev.offload.benchmarks.prototype;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.jmh.FreeBackend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class SlotStreamPoolTests {

	private final BackendDevice device = new FreeBackend().devices().get(0);

	@Test
	void borrowWhenEveryStreamIsLentShouldDoubleThePool() {
		SlotStreamPool pool = new SlotStreamPool(this.device, 0, 2);
		Set<BackendStream> lent = new HashSet<>();
		for (int i = 0; i < 3; i++) {
			lent.add(pool.borrow().stream());
		}
		assertThat(lent).hasSize(3);
		assertThat(pool.size()).isEqualTo(4);
		assertThat(pool.inUse()).isEqualTo(3);
	}

	@Test
	void borrowWhenThisThreadReleasedAStreamShouldLendItAgain() {
		SlotStreamPool pool = new SlotStreamPool(this.device, 0, 4);
		SlotStreamPool.Slot first = pool.borrow();
		pool.borrow();
		pool.release(first);
		assertThat(pool.borrow()).isSameAs(first);
	}

	@Test
	void releaseWhenNotLentShouldThrow() {
		SlotStreamPool pool = new SlotStreamPool(this.device, 0, 1);
		SlotStreamPool.Slot slot = pool.borrow();
		pool.release(slot);
		assertThatIllegalStateException().isThrownBy(() -> pool.release(slot)).withMessageContaining("not lent");
	}

	@Test
	void borrowWhenManyThreadsShouldNeverLendAStreamTwice() {
		SlotStreamPool pool = new SlotStreamPool(this.device, 0, 2);
		Set<BackendStream> held = ConcurrentHashMap.newKeySet();
		CountDownLatch start = new CountDownLatch(1);
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			workers.add(CompletableFuture.runAsync(() -> {
				await(start);
				for (int i = 0; i < 10_000; i++) {
					SlotStreamPool.Slot slot = pool.borrow();
					assertThat(held.add(slot.stream())).isTrue();
					held.remove(slot.stream());
					pool.release(slot);
				}
			}, (task) -> new Thread(task).start()));
		}
		start.countDown();
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();
		assertThat(pool.inUse()).isZero();
		assertThat(pool.borrows()).isEqualTo(80_000);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
