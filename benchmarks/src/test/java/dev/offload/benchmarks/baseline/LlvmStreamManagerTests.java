package dev.offload.benchmarks.baseline;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.jmh.FreeBackend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class LlvmStreamManagerTests {

	private final BackendDevice device = new FreeBackend().devices().get(0);

	@Test
	void getStreamWhenEveryStreamIsLentShouldDoubleThePool() {
		LlvmStreamManager pool = new LlvmStreamManager(this.device, 0, 2);
		Set<BackendStream> lent = new HashSet<>();
		for (int i = 0; i < 3; i++) {
			lent.add(pool.getStream());
		}
		assertThat(lent).hasSize(3);
		assertThat(pool.size()).isEqualTo(4);
	}

	@Test
	void getStreamWhenAStreamWasReturnedShouldLendItAgain() {
		LlvmStreamManager pool = new LlvmStreamManager(this.device, 0, 2);
		BackendStream first = pool.getStream();
		BackendStream second = pool.getStream();
		pool.returnStream(first);
		assertThat(pool.getStream()).isSameAs(first).isNotSameAs(second);
		assertThat(pool.size()).isEqualTo(2);
	}

	@Test
	void returnStreamWhenNothingIsLentShouldThrow() {
		LlvmStreamManager pool = new LlvmStreamManager(this.device, 0, 1);
		BackendStream stream = pool.getStream();
		pool.returnStream(stream);
		assertThatIllegalStateException().isThrownBy(() -> pool.returnStream(stream))
			.withMessageContaining("No stream is lent");
	}

}
