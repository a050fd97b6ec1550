package dev.offload.sample.ops;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The alert rules under {@code ops/prometheus} pass {@code promtool check rules} and
 * their unit tests ({@code promtool test rules}), and those unit tests catch a broken
 * rule; the autoscalers' queries (KEDA triggers, prometheus-adapter rules) parse, checked
 * as recording rules. Needs Debian's {@code prometheus} package for {@code promtool}
 * ({@code .ci/run} installs it); skipped, saying so, without it.
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

	@Test
	void autoscalerQueriesShouldParse(@TempDir Path dir) throws Exception {
		List<String> queries = autoscalerQueries();
		assertThat(queries).hasSize(15);
		Result result = run("check", "rules", recordingRules(dir, queries).toString());
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).contains("SUCCESS: 15 rules found");
	}

	@Test
	void autoscalerQueriesWhenOneIsBrokenShouldFailToParse(@TempDir Path dir) throws Exception {
		List<String> queries = new ArrayList<>(autoscalerQueries());
		queries.set(0, queries.get(0).replaceFirst("\\)$", ""));
		Result result = run("check", "rules", recordingRules(dir, queries).toString());
		assertThat(result.exitCode()).as(result.output()).isNotZero();
	}

	/**
	 * The KEDA triggers' queries and the prometheus-adapter rules' queries, with the
	 * adapter's templates filled in as it would for one pod.
	 */
	private static List<String> autoscalerQueries() {
		List<String> queries = new ArrayList<>();
		Map<String, Object> scaledObject = new Yaml().load(OpsFiles.read(OpsMetricNamesTests.SCALED_OBJECT));
		for (Object trigger : list(map(scaledObject.get("spec")).get("triggers"))) {
			queries.add((String) map(map(trigger).get("metadata")).get("query"));
		}
		Map<String, Object> adapter = new Yaml().load(OpsFiles.read(OpsMetricNamesTests.ADAPTER_RULES));
		for (Object rule : list(adapter.get("rules"))) {
			for (String key : List.of("seriesQuery", "metricsQuery")) {
				queries
					.add(((String) map(rule).get(key)).replace("<<.LabelMatchers>>", "namespace=\"default\",pod=\"p\"")
						.replace("<<.GroupBy>>", "pod"));
			}
		}
		return queries;
	}

	private static Path recordingRules(Path dir, List<String> queries) throws IOException {
		List<Map<String, Object>> rules = new ArrayList<>();
		for (int i = 0; i < queries.size(); i++) {
			rules.add(Map.of("record", "autoscaler:query" + i, "expr", queries.get(i)));
		}
		Path file = dir.resolve("autoscaler-queries.yml");
		Files.writeString(file,
				new Yaml().dump(Map.of("groups", List.of(Map.of("name", "autoscaler", "rules", rules)))),
				StandardCharsets.UTF_8);
		return file;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	@SuppressWarnings("unchecked")
	private static List<Object> list(Object value) {
		return (List<Object>) value;
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
