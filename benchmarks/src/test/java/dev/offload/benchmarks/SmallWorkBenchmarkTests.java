package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.support.CommandLine;
import dev.offload.internal.VirtualThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The small-work benchmark on the host backend: batched prices and replayed outputs
 * compared bit for bit with their references, and bad options refused.
 */
class SmallWorkBenchmarkTests {

	@Test
	void runWhenSmallShouldFindBatchedAndReplayedResultsIdentical() throws Exception {
		String output = run("platform");
		assertThat(output).contains("16 concurrent one-option price requests, platform callers")
			.contains("batched prices bit-identical to unbatched: yes")
			.containsPattern("\\(\\d+ results compared with the prices of the same options priced alone, 0 differ\\)")
			.contains("batched (max delay 200 µs), sustained")
			.contains("batcher with no device work (ceiling), bursts")
			.contains("batcher with no device work (ceiling), sustained")
			.contains("sustained: throughput ratio")
			.contains("A flow of 4 launches (8 options each) with a copy in and out")
			.contains("A flow of 4 launches (8 options each), then a synchronize")
			.contains("4 launches of an empty kernel, then a synchronize")
			.contains("replayed outputs bit-identical to eager: yes");
	}

	@Test
	void runWithVirtualCallersShouldFindBatchedResultsIdenticalWhereVirtualThreadsExist() throws Exception {
		if (!VirtualThreads.isSupported()) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> CommandLine.read(SmallWorkBenchmark.Options::from, "--callers", "virtual"))
				.withMessageContaining("--callers virtual needs Java 21 or later");
			return;
		}
		assertThat(run("virtual")).contains("16 concurrent one-option price requests, virtual callers")
			.contains("batched prices bit-identical to unbatched: yes");
	}

	@Test
	void parseShouldRejectBadOptions() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(SmallWorkBenchmark.Options::from, "--requests", "0"))
			.withMessage("--requests must be at least 1, was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(SmallWorkBenchmark.Options::from, "--sessions", "5"))
			.withMessage("Unknown option --sessions");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(SmallWorkBenchmark.Options::from, "--callers", "carrier"))
			.withMessage("--callers must be one of platform, virtual, was 'carrier'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(SmallWorkBenchmark.Options::from, "--seconds", "1", "--ramp-ms", "1000"))
			.withMessageContaining("--ramp-ms (1000) must be shorter than --seconds (1 s)");
	}

	private static String run(String callers) throws Exception {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		SmallWorkBenchmark.Options options = CommandLine.read(SmallWorkBenchmark.Options::from, "--callers", callers,
				"--requests", "16", "--rounds", "2", "--seconds", "1", "--ramp-ms", "100", "--launches", "4",
				"--flow-options", "8", "--replays", "5", "--host-workers", "2");
		boolean identical = new SmallWorkBenchmark(options, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
		assertThat(identical).isTrue();
		return bytes.toString(StandardCharsets.UTF_8);
	}

}
