package dev.offload.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.internal.lending.LendingCensus;
import dev.offload.internal.lending.LendingPool;

import static org.assertj.core.api.Assertions.assertThat;

class FreeItemsTests {

	@Test
	void borrowAndReleaseShouldLendAndTakeBackAnItem() {
		LendingPool<FreeItems.Item> pool = FreeItems.pool(StreamPoolConfig.DEFAULT_INITIAL_SIZE, 0,
				TimeUnit.SECONDS.toNanos(30));
		FreeItems.Item item = pool.borrow(StreamPriority.NORMAL.ordinal());
		assertThat(pool.inUse()).isEqualTo(1);
		pool.release(item);
		LendingCensus census = pool.census();
		assertThat(census.inUse()).isZero();
		assertThat(census.borrows()).isEqualTo(1);
		assertThat(census.idle()).isEqualTo(StreamPoolConfig.DEFAULT_INITIAL_SIZE);
		assertThat(pool.shutdown(0)).isTrue();
	}

}
