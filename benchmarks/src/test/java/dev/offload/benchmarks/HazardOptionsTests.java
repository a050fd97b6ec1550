package dev.offload.benchmarks;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.support.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HazardOptionsTests {

	@Test
	void parseWhenNoArgumentsShouldUseTheDefaultWorkload() {
		HazardOptions options = CommandLine.read(HazardOptions::from);
		assertThat(options.backend()).isEqualTo("host");
		assertThat(options.workload()).isEqualTo(new HazardWorkload(16, 20_000, 200, 5_000_000, 20_000));
		assertThat(options.strategies()).containsExactly("offload", "offload-sync", "round-robin-256", "round-robin-32",
				"create-destroy", "bare-pool", "light-only");
		assertThat(options.csv()).isNull();
	}

	@Test
	void parseWhenOptionsAreGivenShouldUseThem() {
		HazardOptions options = CommandLine.read(HazardOptions::from, "--backend", "cuda", "--threads", "4",
				"--sessions", "100", "--heavy-every", "10", "--heavy-micros", "500", "--light-micros", "5",
				"--strategies", "offload,round-robin-8", "--repeat", "2", "--warmup", "0", "--csv", "out.csv");
		assertThat(options.backend()).isEqualTo("cuda");
		assertThat(options.workload()).isEqualTo(new HazardWorkload(4, 100, 10, 500_000, 5_000));
		assertThat(options.strategies()).containsExactly("offload", "round-robin-8");
		assertThat(options.repeat()).isEqualTo(2);
		assertThat(options.warmup()).isZero();
		assertThat(options.csv()).isEqualTo(Path.of("out.csv"));
	}

	@Test
	void parseWhenStrategyIsUnknownShouldNameIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CommandLine.read(HazardOptions::from, "--strategies", "offload,fifo"))
			.withMessageContaining("Unknown strategy 'fifo'");
	}

	@Test
	void parseWhenOptionIsUnknownShouldNameIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(HazardOptions::from, "--gpus", "2"))
			.withMessage("Unknown option --gpus");
	}

	@Test
	void parseWhenValueIsMissingShouldSaySo() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(HazardOptions::from, "--threads"))
			.withMessage("--threads needs a value");
	}

}
