package dev.offload.benchmarks.jmh;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.StreamPoolConfig;

import static org.assertj.core.api.Assertions.assertThat;

class StreamPoolAccessTests {

	@Test
	void borrowAndReleaseShouldLendAndTakeBackAStream() {
		try (DeviceRegistry registry = DeviceRegistry.builder(new FreeBackend()).build()) {
			StreamPool pool = registry.device(0).streamPool();
			Object stream = StreamPoolAccess.borrow(pool);
			assertThat(pool.inUse()).isEqualTo(1);
			StreamPoolAccess.release(pool, stream);
			assertThat(pool.statistics().inUse()).isZero();
			assertThat(pool.statistics().borrows()).isEqualTo(1);
			assertThat(pool.statistics().idle()).isEqualTo(StreamPoolConfig.DEFAULT_INITIAL_SIZE);
		}
	}

}
