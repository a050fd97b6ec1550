package dev.offload.sample.ops;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every metric that the Grafana dashboard and the Prometheus alert rules under
 * {@code ops/} read is one that the running sample app exports at
 * {@code /actuator/prometheus}, so a renamed meter or a typo in a query fails the build
 * instead of leaving a panel empty or an alert silent.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpsMetricNamesTests {

	static final String DASHBOARD = "grafana/offload-dashboard.json";

	static final String ALERTS = "prometheus/offload-alerts.yml";

	@LocalManagementPort
	int managementPort;

	@Autowired
	DeviceRegistry registry;

	private Set<String> exported;

	@BeforeEach
	void scrape() throws Exception {
		// One session, so that the timers have seen work as they would in production.
		try (OffloadSession session = this.registry.openSession()) {
			session.streamId();
		}
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.managementPort + "/actuator/prometheus"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		this.exported = sampleNames(response.body());
	}

	@Test
	void dashboardQueriesShouldReadOnlyExportedMetrics() {
		String dashboard = OpsFiles.read(DASHBOARD);
		Map<String, Set<String>> queries = new LinkedHashMap<>();
		for (String expr : JsonPath.<List<String>>read(dashboard, "$..targets[*].expr")) {
			queries.put(expr, PromQlMetricNames.of(expr));
		}
		for (String definition : JsonPath.<List<String>>read(dashboard,
				"$.templating.list[?(@.type == 'query')].definition")) {
			queries.put(definition, Set.of(PromQlMetricNames.ofLabelValues(definition)));
		}
		assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
		assertReadOnlyExported(queries);
	}

	@Test
	void dashboardShouldShowEveryOffloadFamily() {
		Set<String> read = new TreeSet<>();
		JsonPath.<List<String>>read(OpsFiles.read(DASHBOARD), "$..targets[*].expr")
			.forEach((expr) -> read.addAll(PromQlMetricNames.of(expr)));
		assertThat(read).contains("offload_healthy_devices", "offload_streams_active_streams",
				"offload_streams_idle_streams", "offload_streams_pending_threads",
				"offload_streams_timeout_borrows_total", "offload_streams_discarded_streams_total",
				"offload_sessions_leaked_sessions_total", "offload_session_seconds_bucket");
	}

	@Test
	void alertExpressionsShouldReadOnlyExportedMetrics() {
		Map<String, Object> rules = new Yaml().load(OpsFiles.read(ALERTS));
		Map<String, Set<String>> queries = new LinkedHashMap<>();
		for (Map<String, Object> group : list(rules.get("groups"))) {
			for (Map<String, Object> rule : list(group.get("rules"))) {
				String expr = (String) rule.get("expr");
				queries.put(rule.get("alert") + ": " + expr, PromQlMetricNames.of(expr));
			}
		}
		assertThat(queries).hasSizeGreaterThanOrEqualTo(4);
		assertReadOnlyExported(queries);
	}

	private void assertReadOnlyExported(Map<String, Set<String>> queries) {
		queries.forEach((query, names) -> {
			assertThat(names).as("metrics read by %s", query).isNotEmpty();
			assertThat(this.exported).as("metrics exported, against those read by %s", query).containsAll(names);
		});
	}

	/**
	 * The sample names of a Prometheus text exposition: {@code name} of each
	 * {@code name{labels} value} line.
	 */
	static Set<String> sampleNames(String exposition) {
		Set<String> names = new TreeSet<>();
		for (String line : exposition.split("\n")) {
			if (!line.isBlank() && !line.startsWith("#")) {
				names.add(line.split("[{ ]", 2)[0]);
			}
		}
		return names;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

}
