package dev.offload.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.benchmarks.support.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class HazardBenchmarkTests {

	@TempDir
	Path directory;

	@Test
	void runWhenOnTheHostBackendShouldMeasureEveryStrategy() throws Exception {
		Path csv = this.directory.resolve("hazard.csv");
		HazardOptions options = CommandLine.read(HazardOptions::from, "--threads", "2", "--sessions", "60",
				"--heavy-every", "20", "--heavy-micros", "300", "--light-micros", "20", "--warmup", "10", "--repeat",
				"1", "--host-workers", "2", "--csv", csv.toString());
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		Map<String, List<HazardWorkload.Result>> results = new HazardBenchmark(options,
				new PrintStream(printed, true, StandardCharsets.UTF_8))
			.run();
		assertThat(results).containsOnlyKeys(HazardOptions.ALL_STRATEGIES);
		HazardWorkload.Result mixed = results.get("offload").get(0);
		assertThat(mixed.heavy().count()).isEqualTo(3);
		assertThat(mixed.light().count()).isEqualTo(57);
		assertThat(mixed.heavy().p50Nanos()).isGreaterThanOrEqualTo(300_000);
		assertThat(mixed.light().p50Nanos()).isGreaterThanOrEqualTo(20_000);
		assertThat(results.get("light-only").get(0).light().count()).isEqualTo(60);
		String output = printed.toString(StandardCharsets.UTF_8);
		assertThat(output).contains("| round-robin-256 | 1 |").contains("light p99 mixed / light-only = ");
		assertThat(Files.readAllLines(csv)).hasSize(1 + HazardOptions.ALL_STRATEGIES.size())
			.first()
			.asString()
			.startsWith("backend,strategy,round");
	}

	@Test
	void runWhenTheKernelIsHeavyShouldTakeAtLeastItsTime() {
		HazardWorkload workload = new HazardWorkload(1, 3, 1, 2_000_000, 0);
		HazardWorkload.Result result = workload.run((nanos) -> {
			long start = System.nanoTime();
			while (System.nanoTime() - start < nanos) {
				Thread.onSpinWait();
			}
		});
		assertThat(result.heavy().count()).isEqualTo(3);
		assertThat(result.heavy().p50Nanos()).isGreaterThanOrEqualTo(2_000_000);
		assertThat(result.wallNanos()).isGreaterThanOrEqualTo(6_000_000);
	}

	@Test
	void runWithAHeavyKernelAlwaysRunningShouldTimeTheBackToBackHeavyTasksApart() {
		HazardWorkload workload = CommandLine
			.read(HazardOptions::from, "--threads", "1", "--sessions", "20", "--heavy-every", "0", "--heavy-micros",
					"1000", "--light-micros", "500", "--heavy-always", "1")
			.workload();
		java.util.concurrent.atomic.AtomicInteger heavyRunning = new java.util.concurrent.atomic.AtomicInteger();
		java.util.concurrent.atomic.AtomicInteger lightBesideHeavy = new java.util.concurrent.atomic.AtomicInteger();
		HazardWorkload.Result result = workload.run((nanos) -> {
			boolean heavy = nanos == 1_000_000;
			if (heavy) {
				heavyRunning.incrementAndGet();
			}
			else if (heavyRunning.get() > 0) {
				lightBesideHeavy.incrementAndGet();
			}
			long start = System.nanoTime();
			while (System.nanoTime() - start < nanos) {
				Thread.onSpinWait();
			}
			if (heavy) {
				heavyRunning.decrementAndGet();
			}
		});
		assertThat(workload.heavyAlways()).isEqualTo(1);
		assertThat(result.light().count()).isEqualTo(20);
		assertThat(result.heavy().count()).isPositive();
		assertThat(result.heavy().p50Nanos()).isGreaterThanOrEqualTo(1_000_000);
		assertThat(lightBesideHeavy.get()).isPositive();
	}

}
