package dev.offload.sample.ops;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The alert rules under {@code ops/prometheus} pass {@code promtool check rules} and
 * their unit tests ({@code promtool test rules}), and those unit tests catch a broken
 * rule. Needs Debian's {@code prometheus} package for {@code promtool} ({@code .ci/run}
 * installs it); skipped, saying so, without it.
 */
class PrometheusRulesTests {

	private static final String TESTS = "prometheus/offload-alerts-test.yml";

	private static Path promtool;

	@BeforeAll
	static void findPromtool() {
		promtool = onPath("promtool");
		assumeThat(promtool).as("promtool on the PATH (Debian: apt-get install prometheus)").isNotNull();
	}

	@Test
	void checkRulesShouldPass() throws Exception {
		Result result = run("check", "rules", OpsFiles.path(OpsMetricNamesTests.ALERTS).toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS");
	}

	@Test
	void ruleUnitTestsShouldPass() throws Exception {
		Result result = run("test", "rules", OpsFiles.path(TESTS).toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS");
	}

	@Test
	void ruleUnitTestsWhenARuleIsBrokenShouldFail(@TempDir Path dir) throws Exception {
		String rules = Files.readString(OpsFiles.path(OpsMetricNamesTests.ALERTS), StandardCharsets.UTF_8);
		String broken = rules.replace("offload_streams_pending_threads > 0", "offload_streams_pending_threads > 5");
		assertThat(broken).isNotEqualTo(rules);
		Files.writeString(dir.resolve("offload-alerts.yml"), broken, StandardCharsets.UTF_8);
		Files.copy(OpsFiles.path(TESTS), dir.resolve("offload-alerts-test.yml"));
		Result result = run("test", "rules", dir.resolve("offload-alerts-test.yml").toString());
		assertThat(result.exitCode()).as(result.output()).isNotZero();
		assertThat(result.output()).contains("OffloadPoolSaturated");
	}

	private static Result run(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(promtool.toString());
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		// The output ends when promtool exits, so this does not wait further.
		return new Result(process.waitFor(), output);
	}

	private static Path onPath(String executable) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, executable);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private record Result(int exitCode, String output) {
	}

}
