package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The small-work benchmark on the host backend: batched prices and replayed outputs
 * compared bit for bit with their references, and bad options refused.
 */
class SmallWorkBenchmarkTests {

	@Test
	void runWhenSmallShouldFindBatchedAndReplayedResultsIdentical() throws Exception {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		SmallWorkBenchmark.Options options = SmallWorkBenchmark.Options.parse(new String[] { "--requests", "16",
				"--rounds", "2", "--launches", "4", "--flow-options", "8", "--replays", "5", "--host-workers", "2" });
		boolean identical = new SmallWorkBenchmark(options, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
		assertThat(identical).isTrue();
		assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("16 concurrent one-option price requests")
			.contains("batched prices bit-identical to unbatched: yes")
			.contains("batched (max delay 200 µs), sustained")
			.contains("A flow of 4 launches (8 options each) with a copy in and out")
			.contains("A flow of 4 launches (8 options each), then a synchronize")
			.contains("4 launches of an empty kernel, then a synchronize")
			.contains("replayed outputs bit-identical to eager: yes");
	}

	@Test
	void parseShouldRejectBadOptions() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SmallWorkBenchmark.Options.parse(new String[] { "--requests", "0" }))
			.withMessageContaining("--requests must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SmallWorkBenchmark.Options.parse(new String[] { "--sessions", "5" }))
			.withMessageContaining("Unknown option --sessions");
	}

}
