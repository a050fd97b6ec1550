package dev.offload.internal.lending;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.offload.internal.lending.LendingPoolTests.FreeItem;
import dev.offload.internal.lending.LendingPoolTests.FreeItems;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How borrowers find idle items through their class's {@link IdleHints}: every idle item
 * has a hint, no item more than one, and the hints of destroyed items neither pile up nor
 * lend them.
 */
class IdleHintsTests {

	private static final long LONG = TimeUnit.MINUTES.toNanos(5);

	private final FreeItems items = new FreeItems();

	private final LendingPool<FreeItem> pool = new LendingPool<>(this.items, 1, 0,
			new int[] { Integer.MAX_VALUE, Integer.MAX_VALUE }, new long[] { LONG, LONG },
			LoggerFactory.getLogger(IdleHintsTests.class), "the test");

	private final IdleHints hints = this.pool.classes[0].hints;

	@Test
	void anItemLentAgainAndAgainOnTheFastPathShouldKeepOneHint() {
		List<FreeItem> lent = borrow(4);
		lent.forEach(this.pool::release);
		assertThat(this.hints.size()).isEqualTo(4);
		FreeItem last = lent.get(3);
		for (int i = 0; i < 10_000; i++) {
			FreeItem item = this.pool.borrow(0);
			assertThat(item).isSameAs(last);
			this.pool.release(item);
		}
		assertThat(this.hints.size()).isEqualTo(4);
	}

	@Test
	void aBorrowerWithoutAFastPathShouldFindTheOneIdleItemAmongThousandsLent() throws Exception {
		List<FreeItem> lent = borrow(4096);
		FreeItem idle = lent.get(1234);
		this.pool.release(idle);
		assertThat(this.pool.census().idle()).isEqualTo(1);
		long created = this.pool.created();
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			assertThat(other.submit(() -> this.pool.borrow(0)).get()).isSameAs(idle);
		}
		finally {
			other.shutdownNow();
		}
		assertThat(this.pool.created()).isEqualTo(created);
		assertThat(this.hints.size()).isZero();
	}

	@Test
	void aHintWhoseItemWasLentMeanwhileShouldBeDroppedAndPushedAgainOnItsRelease() throws Exception {
		FreeItem item = borrow(1).get(0);
		this.pool.release(item);
		// Lent again on the fast path: its hint stays, stale.
		assertThat(this.pool.borrow(0)).isSameAs(item);
		FreeItem other = CompletableFuture.supplyAsync(() -> this.pool.borrow(0)).get(1, TimeUnit.MINUTES);
		assertThat(other).isNotSameAs(item);
		assertThat(this.hints.size()).isZero();
		this.pool.release(item);
		assertThat(this.hints.size()).isEqualTo(1);
		assertThat(this.hints.take(Lendable.IN_USE)).isSameAs(item);
	}

	@Test
	void theHintsOfDestroyedItemsShouldBeSweptBeforeTheyOutnumberTheItems() {
		List<FreeItem> lent = borrow(1024);
		assertThat(this.pool.census().idle()).isZero();
		for (FreeItem item : lent.subList(0, 1023)) {
			this.pool.release(item);
			// Lent again on the fast path and destroyed: its hint stays until swept.
			this.pool.discard(this.pool.borrow(0), () -> {
			});
			assertThat(this.hints.size()).isLessThanOrEqualTo(this.pool.classes[0].items.length);
		}
		assertThat(this.pool.classes[0].items).containsExactly(lent.get(1023));
		FreeItem fresh = this.pool.borrow(0);
		assertThat(lent).doesNotContain(fresh);
	}

	@Test
	void shutdownShouldLeaveNoHint() {
		borrow(128).forEach(this.pool::release);
		assertThat(this.hints.size()).isEqualTo(128);
		this.pool.shutdown(0);
		assertThat(this.items.destroyed).isEqualTo(128);
		assertThat(this.hints.size()).isZero();
	}

	private List<FreeItem> borrow(int count) {
		List<FreeItem> lent = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			lent.add(this.pool.borrow(0));
		}
		return lent;
	}

}
