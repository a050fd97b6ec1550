package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.offload.benchmarks.support.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HazardScalingTests {

	@Test
	void runWhenTwoHostDevicesShouldMeasureOneDeviceAgainstTwiceTheWorkOnBoth() {
		HazardOptions options = CommandLine.read(HazardOptions::from, "--devices", "2", "--threads", "2", "--sessions",
				"40", "--heavy-every", "20", "--heavy-micros", "300", "--light-micros", "20", "--warmup", "10",
				"--repeat", "2", "--host-workers", "2");
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		Map<Integer, List<HazardWorkload.Result>> results = new HazardScaling(options,
				new PrintStream(printed, true, StandardCharsets.UTF_8))
			.run();
		assertThat(results).containsOnlyKeys(1, 2);
		assertThat(results.get(1)).hasSize(2).allSatisfy((result) -> {
			assertThat(result.heavy().count()).isEqualTo(2);
			assertThat(result.light().count()).isEqualTo(38);
		});
		assertThat(results.get(2)).hasSize(2).allSatisfy((result) -> {
			assertThat(result.heavy().count()).isEqualTo(4);
			assertThat(result.light().count()).isEqualTo(76);
			assertThat(result.heavy().p50Nanos()).isGreaterThanOrEqualTo(300_000);
		});
		String output = printed.toString(StandardCharsets.UTF_8);
		assertThat(output).contains("devices [0 (Host device 0), 1 (Host device 1)]")
			.contains("| 1 | 1 | 40 |")
			.contains("| 2 | 2 | 80 |")
			.contains("- throughput 2 devices / 1 device = ")
			.contains("(goal at least 1.8)")
			.contains("- light p99 2 devices / 1 device = ");
	}

	@Test
	void parseWhenDevicesIsZeroShouldNameTheOption() {
		assertThatIllegalArgumentException().isThrownBy(() -> CommandLine.read(HazardOptions::from, "--devices", "0"))
			.withMessage("--devices must be at least 1, was 0");
	}

	@Test
	void parseWhenDevicesIsUnsetShouldBeOne() {
		assertThat(CommandLine.read(HazardOptions::from).devices()).isEqualTo(1);
	}

}
