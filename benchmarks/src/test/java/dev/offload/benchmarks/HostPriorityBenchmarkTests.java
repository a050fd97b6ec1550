package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.support.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The host priority benchmark measures HIGH kernels while NORMAL kernels run and rejects
 * bad options.
 */
class HostPriorityBenchmarkTests {

	@Test
	void runWhenSmallShouldMeasureHighKernelsUnderLoadAndPrintARowPerRound() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		HostPriorityBenchmark.Options options = CommandLine.read(HostPriorityBenchmark.Options::from, "--threads",
				"1048576", "--normal-kernels", "2", "--rounds", "2", "--workers", "2", "--pause-micros", "0");
		List<HostPriorityBenchmark.Round> rounds = new HostPriorityBenchmark(options,
				new PrintStream(bytes, true, StandardCharsets.UTF_8))
			.run();
		assertThat(rounds).hasSize(2).allSatisfy((round) -> {
			assertThat(round.idle().count()).isEqualTo(200);
			assertThat(round.loaded().count()).isPositive();
			assertThat(round.normalNanos()).isPositive();
		});
		assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("2 workers")
			.contains("2 NORMAL kernel(s) of 1048576 threads")
			.contains("| 1 |")
			.contains("| 2 |");
	}

	@Test
	void parseShouldRejectBadOptions() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(HostPriorityBenchmark.Options::from, "--threads", "1000"))
			.withMessageStartingWith("--threads must be a multiple of 256");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(HostPriorityBenchmark.Options::from, "--rounds", "0"))
			.withMessage("--rounds must be at least 1, was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(HostPriorityBenchmark.Options::from, "--speed", "3"))
			.withMessage("Unknown option --speed");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(HostPriorityBenchmark.Options::from, "--rounds"))
			.withMessage("--rounds needs a value");
	}

}
