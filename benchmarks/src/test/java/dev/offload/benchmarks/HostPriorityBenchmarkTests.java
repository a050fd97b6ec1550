package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

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
		HostPriorityBenchmark.Options options = HostPriorityBenchmark.Options.parse(new String[] { "--threads",
				"1048576", "--normal-kernels", "2", "--rounds", "2", "--workers", "2", "--pause-micros", "0" });
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
			.isThrownBy(() -> HostPriorityBenchmark.Options.parse(new String[] { "--threads", "1000" }))
			.withMessageStartingWith("--threads must be a multiple of 256");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> HostPriorityBenchmark.Options.parse(new String[] { "--rounds", "0" }))
			.withMessageStartingWith("Option --rounds needs a positive whole number, was '0'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> HostPriorityBenchmark.Options.parse(new String[] { "--speed", "3" }))
			.withMessageStartingWith("Unknown option --speed");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> HostPriorityBenchmark.Options.parse(new String[] { "--rounds" }))
			.withMessageStartingWith("Option --rounds needs a value");
	}

}
