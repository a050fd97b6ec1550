package dev.offload.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the configuration processor documents every {@link OffloadProperties} key,
 * so that IDEs complete and describe them.
 */
class OffloadPropertiesMetadataTests {

	private static final Map<String, Object> DEFAULTS = Map.ofEntries(Map.entry("offload.backend", "auto"),
			Map.entry("offload.cuda.binding", "auto"), Map.entry("offload.devices", List.of("all")),
			Map.entry("offload.stream-pool.initial-size", 32), Map.entry("offload.stream-pool.max-size", 256),
			Map.entry("offload.stream-pool.borrow-timeout", "30s"), Map.entry("offload.host.device-count", 1),
			Map.entry("offload.buffer-cache.max-size", "256MB"), Map.entry("offload.shutdown.await-termination", "10s"),
			Map.entry("offload.aop.enabled", true), Map.entry("offload.health.readiness.on-device-failure", true),
			Map.entry("offload.health.readiness.on-saturation", false), Map.entry("offload.health.nvml.enabled", true),
			Map.entry("offload.batching.max-batch-size", 1024), Map.entry("offload.batching.max-queue", 65536),
			Map.entry("offload.batching.max-delay", "200000ns"), Map.entry("offload.memory.budget", "90%"),
			Map.entry("offload.blas.math-mode", "default"), Map.entry("offload.tenants.default-weight", 1),
			Map.entry("offload.tenants.max-tracked", 64), Map.entry("offload.tenants.principal", false));

	private static final List<String> WITHOUT_DEFAULT = List.of("offload.devices-config", "offload.host.device-names",
			"offload.host.workers-per-device", "offload.host.memory", "offload.leak-detection-threshold",
			"offload.async.executor", "offload.stream-pool.lanes", "offload.session.timeout", "offload.test",
			"offload.batching.preferred-batch-sizes",
			// The cache directory's default is computed (~/.cache/offload/kernels).
			"offload.kernels.cache-dir", "offload.kernels.nvrtc-library", "offload.blas.library",
			// The workspace's default follows the device (cuBLAS's recommendation).
			"offload.blas.workspace-size", "offload.tenants.shares", "offload.tenants.header");

	@Test
	void metadataShouldDescribeEveryProperty() throws IOException {
		// The endpoint's own keys (management.endpoint.streampools.*) are generated too;
		// this test is about offload.*.
		List<Map<String, Object>> properties = JsonPath.<List<Map<String, Object>>>read(metadata(), "$.properties[*]")
			.stream()
			.filter((property) -> ((String) property.get("name")).startsWith("offload."))
			.toList();
		assertThat(properties).extracting((property) -> property.get("name"))
			.containsExactlyInAnyOrderElementsOf(concat(DEFAULTS.keySet(), WITHOUT_DEFAULT));
		assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
			.as("description of %s", property.get("name"))
			.isNotBlank());
	}

	@Test
	void metadataShouldGiveEveryDefault() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(metadata(), "$.properties[*]");
		for (Map<String, Object> property : properties) {
			Object expected = DEFAULTS.get(property.get("name"));
			if (expected != null) {
				assertThat(property.get("defaultValue")).as("default of %s", property.get("name")).isEqualTo(expected);
			}
		}
	}

	private static String metadata() throws IOException {
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static List<String> concat(Collection<String> first, List<String> second) {
		List<String> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

}
