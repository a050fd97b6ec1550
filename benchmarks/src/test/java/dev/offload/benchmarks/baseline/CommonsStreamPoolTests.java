package dev.offload.benchmarks.baseline;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.jmh.FreeBackend;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;

class CommonsStreamPoolTests {

	@Test
	void borrowWhenIdleStreamsAreLentShouldCreateMore() throws Exception {
		try (CommonsStreamPool pool = new CommonsStreamPool(new FreeBackend().devices().get(0), 0, 1)) {
			BackendStream first = pool.borrow();
			BackendStream second = pool.borrow();
			assertThat(second).isNotSameAs(first);
			assertThat(pool.size()).isEqualTo(2);
			pool.release(second);
			assertThat(pool.borrow()).isSameAs(second);
		}
	}

}
