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
 * Every metric that the Grafana dashboard, the Prometheus alert rules and the autoscalers
 * (the KEDA {@code ScaledObject} and the prometheus-adapter rules behind the HPA) under
 * {@code ops/} read is one that the running sample app exports at
 * {@code /actuator/prometheus}, so a renamed meter or a typo in a query fails the build
 * instead of leaving a panel empty, an alert silent or an autoscaler blind. The
 * dashboard's GPU panels read the DCGM exporter's metrics, which no application exports:
 * those must be among the exporter's default counters.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpsMetricNamesTests {

	static final String DASHBOARD = "grafana/offload-dashboard.json";

	static final String ALERTS = "prometheus/offload-alerts.yml";

	static final String SCALED_OBJECT = "kubernetes/keda-scaledobject.yaml";

	static final String ADAPTER_RULES = "prometheus/prometheus-adapter-rules.yml";

	/**
	 * The prefix of the DCGM exporter's metrics.
	 */
	private static final String DCGM_PREFIX = "DCGM_FI_";

	/**
	 * The DCGM exporter's default counters that the dashboard may read: a subset of its
	 * {@code etc/default-counters.csv}, which every exporter install collects unless
	 * configured otherwise.
	 */
	private static final Set<String> DCGM_DEFAULT_COUNTERS = Set.of("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
			"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
			"DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_XID_ERRORS");

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

	@Test
	void dashboardShouldShowTheGpuBesideTheQueue() {
		Set<String> read = new TreeSet<>();
		JsonPath.<List<String>>read(OpsFiles.read(DASHBOARD), "$..targets[*].expr")
			.forEach((expr) -> read.addAll(PromQlMetricNames.of(expr)));
		assertThat(read).contains("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
				"DCGM_FI_DEV_SM_CLOCK");
	}

	@Test
	void scaledObjectQueriesShouldReadOnlyExportedMetrics() {
		Map<String, Object> scaledObject = new Yaml().load(OpsFiles.read(SCALED_OBJECT));
		Map<String, Set<String>> queries = new LinkedHashMap<>();
		for (Map<String, Object> trigger : list(map(scaledObject.get("spec")).get("triggers"))) {
			String query = (String) map(trigger.get("metadata")).get("query");
			queries.put(trigger.get("name") + ": " + query, PromQlMetricNames.of(query));
		}
		assertThat(queries).hasSize(5);
		assertReadOnlyExported(queries);
	}

	@Test
	void adapterRulesShouldReadOnlyExportedMetrics() {
		Map<String, Object> config = new Yaml().load(OpsFiles.read(ADAPTER_RULES));
		Map<String, Set<String>> queries = new LinkedHashMap<>();
		for (Map<String, Object> rule : list(config.get("rules"))) {
			for (String key : List.of("seriesQuery", "metricsQuery")) {
				String query = (String) rule.get(key);
				queries.put(key + ": " + query, PromQlMetricNames.of(query));
			}
		}
		assertThat(queries).hasSize(10);
		assertReadOnlyExported(queries);
	}

	private void assertReadOnlyExported(Map<String, Set<String>> queries) {
		queries.forEach((query, names) -> {
			assertThat(names).as("metrics read by %s", query).isNotEmpty();
			Set<String> dcgm = new TreeSet<>();
			Set<String> offload = new TreeSet<>();
			names.forEach((name) -> (name.startsWith(DCGM_PREFIX) ? dcgm : offload).add(name));
			assertThat(this.exported).as("metrics exported, against those read by %s", query).containsAll(offload);
			assertThat(DCGM_DEFAULT_COUNTERS).as("DCGM exporter default counters, against those read by %s", query)
				.containsAll(dcgm);
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
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

}
