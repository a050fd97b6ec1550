package dev.offload.internal.lending;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lending algorithm alone, over items that cost nothing: what the stream pool's tests
 * check through a device, without one.
 */
class LendingPoolTests {

	private static final long LONG = TimeUnit.MINUTES.toNanos(5);

	private final FreeItems items = new FreeItems();

	private LendingPool<FreeItem> pool(int initialSize, int maxSize, long borrowTimeoutNanos) {
		return new LendingPool<>(this.items, initialSize, maxSize, new int[] { Integer.MAX_VALUE, Integer.MAX_VALUE },
				new long[] { borrowTimeoutNanos, borrowTimeoutNanos }, LoggerFactory.getLogger(LendingPoolTests.class),
				"the test");
	}

	@Test
	void firstBorrowShouldMakeTheInitialSizeAndAReleasedItemShouldBeLentAgain() {
		LendingPool<FreeItem> pool = pool(4, 0, LONG);
		FreeItem item = pool.borrow(0);
		assertThat(pool.created()).isEqualTo(4);
		assertThat(pool.inUse()).isEqualTo(1);
		assertThat(item.waitNanos()).isPositive();
		pool.release(item);
		FreeItem again = pool.borrow(0);
		assertThat(again).isSameAs(item);
		assertThat(again.waitNanos()).isZero();
		LendingCensus census = pool.census();
		assertThat(census.inUse(0)).isEqualTo(1);
		assertThat(census.idle(0)).isEqualTo(3);
		assertThat(census.borrows()).isEqualTo(2);
		assertThat(census.peakInUse()).isEqualTo(1);
	}

	@Test
	void anEmptyClassShouldDoubleUpToTheBound() {
		LendingPool<FreeItem> pool = pool(2, 5, 1);
		List<FreeItem> lent = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			lent.add(pool.borrow(0));
		}
		assertThat(pool.created()).isEqualTo(5);
		assertThat(pool.grows()).isEqualTo(2);
		assertThatExceptionOfType(TimedOut.class).isThrownBy(() -> pool.borrow(0));
		assertThat(pool.timeouts()).isEqualTo(1);
		lent.forEach(pool::release);
		assertThat(pool.inUse()).isZero();
	}

	@Test
	void aDiscardedItemShouldBeDestroyedAndReplacedByTheNextBorrow() {
		LendingPool<FreeItem> pool = pool(1, 1, 1);
		FreeItem item = pool.borrow(0);
		List<String> reported = new ArrayList<>();
		pool.discard(item, () -> reported.add("destroyed " + this.items.destroyed));
		assertThat(reported).containsExactly("destroyed 1");
		assertThat(pool.discarded()).isEqualTo(1);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> pool.release(item))
			.withMessageContaining("is not lent");
		FreeItem replacement = pool.borrow(0);
		assertThat(replacement).isNotSameAs(item);
		assertThat(pool.created() - pool.destroyed()).isEqualTo(1);
	}

	@Test
	void aFullBoundedPoolShouldReplaceAnIdleItemOfAnotherClass() {
		LendingPool<FreeItem> pool = pool(2, 2, 1);
		pool.release(pool.borrow(0));
		FreeItem other = pool.borrow(1);
		assertThat(other.classIndex()).isEqualTo(1);
		assertThat(pool.created()).isEqualTo(3);
		assertThat(pool.destroyed()).isEqualTo(1);
	}

	@Test
	void aReleaseShouldHandTheItemToTheWaiter() throws Exception {
		LendingPool<FreeItem> pool = pool(1, 1, LONG);
		FreeItem held = pool.borrow(0);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<FreeItem> waiter = executor.submit(() -> pool.borrow(0));
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 1);
			assertThat(pool.oldestWaitNanos()).isPositive();
			pool.release(held);
			assertThat(waiter.get()).isSameAs(held);
			assertThat(pool.waiting()).isZero();
			assertThat(pool.wakeUps()).isEqualTo(1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void theOldestWaitShouldFollowTheWaitersAsTheyLeaveInAnyOrder() throws Exception {
		LendingPool<FreeItem> pool = pool(1, 1, LONG);
		FreeItem held = pool.borrow(0);
		ExecutorService first = Executors.newSingleThreadExecutor();
		ExecutorService middle = Executors.newSingleThreadExecutor();
		ExecutorService last = Executors.newSingleThreadExecutor();
		try {
			Future<FreeItem> firstWaiter = first.submit(() -> pool.borrow(0));
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 1);
			long firstWaiting = System.nanoTime();
			middle.submit(() -> pool.borrow(0));
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 2);
			long beforeLast = System.nanoTime();
			last.submit(() -> pool.borrow(0));
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 3);
			// The middle one leaves first (interrupted): the first is still the oldest.
			middle.shutdownNow();
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 2);
			long now = System.nanoTime();
			assertThat(pool.oldestWaitNanos()).isGreaterThan(now - firstWaiting);
			// The first is served: the last one, which began after beforeLast, is now the
			// oldest.
			pool.release(held);
			assertThat(firstWaiter.get()).isSameAs(held);
			assertThat(pool.waiting()).isEqualTo(1);
			long oldest = pool.oldestWaitNanos();
			assertThat(oldest).isPositive().isLessThanOrEqualTo(System.nanoTime() - beforeLast);
			last.shutdownNow();
			Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> pool.waiting() == 0);
			assertThat(pool.oldestWaitNanos()).isZero();
		}
		finally {
			first.shutdownNow();
			middle.shutdownNow();
			last.shutdownNow();
		}
	}

	@Test
	void aBorrowShouldStopWaitingAtItsCallersDeadline() {
		LendingPool<FreeItem> pool = pool(1, 1, LONG);
		pool.borrow(0);
		assertThatExceptionOfType(DeadlinePassed.class).isThrownBy(() -> pool.borrow(0, System.nanoTime() + 1));
		assertThat(pool.timeouts()).isZero();
		assertThat(pool.waiting()).isZero();
	}

	@Test
	void theItemsSourceShouldBeCheckedBeforeTheItems() {
		LendingPool<FreeItem> pool = pool(1, 0, LONG);
		this.items.failed = true;
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> pool.borrow(0)).withMessage("failed");
		assertThat(pool.created()).isZero();
	}

	@Test
	void shutdownShouldDestroyIdleItemsAndTheLentOnesAsTheyComeBack() {
		LendingPool<FreeItem> pool = pool(2, 0, LONG);
		FreeItem lent = pool.borrow(0);
		assertThat(pool.shutdown(0)).isFalse();
		assertThat(pool.isClosed()).isTrue();
		assertThat(this.items.destroyed).isEqualTo(1);
		assertThatExceptionOfType(Closed.class).isThrownBy(() -> pool.borrow(0));
		pool.release(lent);
		assertThat(this.items.destroyed).isEqualTo(2);
		assertThat(pool.census().idle()).isZero();
		assertThat(pool.shutdown(0)).isTrue();
	}

	@Test
	void shutdownShouldDrainThousandsOfIdleItemsAndKeepTheirBorrows() {
		LendingPool<FreeItem> pool = pool(1, 0, LONG);
		List<FreeItem> lent = new ArrayList<>();
		for (int i = 0; i < 4096; i++) {
			lent.add(pool.borrow(0));
		}
		lent.forEach(pool::release);
		assertThat(pool.shutdown(0)).isTrue();
		assertThat(this.items.destroyed).isEqualTo(4096);
		assertThat(pool.destroyed()).isEqualTo(4096);
		assertThat(pool.classes[0].items).isEmpty();
		LendingCensus census = pool.census();
		assertThat(census.idle()).isZero();
		assertThat(census.borrows()).isEqualTo(4096);
	}

	@Test
	void aBorrowerThatFindsNoItemShouldMakeOneBatchAndTheBackgroundTheRest() {
		LendingPool<FreeItem> pool = pool(3 * LendingTuning.GROW_BATCH, 0, LONG);
		this.items.background = true;
		this.items.holdBackground = true;
		pool.borrow(0);
		// The borrower made one batch; the rest waits for the background task, held here.
		assertThat(pool.created()).isEqualTo(LendingTuning.GROW_BATCH);
		assertThat(this.items.held).hasSize(1);
		this.items.held.forEach(Runnable::run);
		assertThat(pool.created()).isEqualTo(3 * LendingTuning.GROW_BATCH);
		pool.shutdown(0);
	}

	static final class FreeItem extends Lendable {

		FreeItem(int classIndex) {
			super(classIndex);
		}

	}

	static final class TimedOut extends RuntimeException {

		TimedOut() {
			super("timed out");
		}

	}

	static final class DeadlinePassed extends RuntimeException {

		DeadlinePassed() {
			super("deadline passed");
		}

	}

	static final class Closed extends RuntimeException {

		Closed() {
			super("closed");
		}

	}

	static final class FreeItems implements LendingItems<FreeItem> {

		volatile boolean failed;

		volatile boolean background;

		/** Background tasks are kept in {@link #held} instead of started. */
		volatile boolean holdBackground;

		final List<Runnable> held = new CopyOnWriteArrayList<>();

		volatile int destroyed;

		@Override
		public List<FreeItem> create(int classIndex, int count) {
			List<FreeItem> made = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				made.add(new FreeItem(classIndex));
			}
			return made;
		}

		@Override
		public synchronized void destroy(FreeItem item) {
			this.destroyed++;
		}

		@Override
		public void checkLending() {
			if (this.failed) {
				throw new IllegalStateException("failed");
			}
		}

		@Override
		public boolean canCreate() {
			return !this.failed;
		}

		@Override
		public void execute(Runnable task) {
			if (!this.background) {
				throw new RejectedExecutionException("no background");
			}
			if (this.holdBackground) {
				this.held.add(task);
				return;
			}
			new Thread(task, "grow").start();
		}

		@Override
		public RuntimeException closed() {
			return new Closed();
		}

		@Override
		public RuntimeException timedOut(int classIndex, long waitedNanos) {
			return new TimedOut();
		}

		@Override
		public RuntimeException deadlinePassed(int classIndex, long waitedNanos) {
			return new DeadlinePassed();
		}

		@Override
		public RuntimeException interrupted(InterruptedException cause) {
			return new IllegalStateException(cause);
		}

	}

}
