package dev.offload.sample.ops;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The checks that a Deployment and its Service agree with the application's settings: the
 * container port and the probes, the Prometheus annotations, and a termination grace
 * period that outlasts the shutdown.
 */
final class KubernetesManifests {

	private final Map<String, Object> deployment;

	private final Map<String, Object> service;

	private KubernetesManifests(Map<String, Object> deployment, Map<String, Object> service) {
		this.deployment = deployment;
		this.service = service;
	}

	/**
	 * Reads the Deployment and the Service of a multi-document YAML text.
	 * @param yaml the manifests
	 * @return them
	 * @throws IllegalArgumentException if either is missing
	 */
	static KubernetesManifests parse(String yaml) {
		Map<String, Object> deployment = null;
		Map<String, Object> service = null;
		for (Object document : new Yaml().loadAll(yaml)) {
			Map<String, Object> manifest = map(document);
			if ("Deployment".equals(manifest.get("kind"))) {
				deployment = manifest;
			}
			else if ("Service".equals(manifest.get("kind"))) {
				service = manifest;
			}
		}
		if (deployment == null || service == null) {
			throw new IllegalArgumentException(
					"Expected a Deployment and a Service, found " + deployment + " and " + service);
		}
		return new KubernetesManifests(deployment, service);
	}

	/**
	 * What in the manifests disagrees with the application's settings.
	 * @param applicationSettings the application's configuration
	 * ({@code application.yml}); the container's environment variables override it
	 * @return one line per disagreement; empty when they agree
	 */
	List<String> problems(List<PropertySource<?>> applicationSettings) {
		List<String> problems = new ArrayList<>();
		Map<String, Object> pod = at(this.deployment, "spec", "template");
		Map<String, Object> podSpec = at(pod, "spec");
		Map<String, Object> container = map(list(podSpec.get("containers")).get(0));
		Binder settings = settings(container, applicationSettings);
		int serverPort = settings.bind("server.port", Integer.class).orElse(8080);
		int managementPort = settings.bind("management.server.port", Integer.class).orElse(serverPort);
		String basePath = settings.bind("management.endpoints.web.base-path", String.class).orElse("/actuator");
		int containerPort = containerPort(container, "http");
		expect(problems, "containerPort 'http'", containerPort, serverPort);
		if (managementPort != serverPort) {
			expect(problems, "containerPort 'management'", containerPort(container, "management"), managementPort);
			String address = settings.bind("management.server.address", String.class).orElse("0.0.0.0");
			if (address.startsWith("127.") || address.equals("localhost") || address.equals("::1")) {
				problems.add("management.server.address is " + address + ": Prometheus cannot reach port "
						+ managementPort + " from outside the pod");
			}
		}
		if (!settings.bind("management.endpoint.health.probes.enabled", Boolean.class).orElse(true)) {
			problems.add("management.endpoint.health.probes.enabled is false: the probe paths do not exist");
		}
		// With additional paths, the probe groups are also served at /livez and /readyz
		// on the application port.
		boolean additional = settings.bind("management.endpoint.health.probes.add-additional-paths", Boolean.class)
			.orElse(false);
		String liveness = additional ? "/livez" : basePath + "/health/liveness";
		String readiness = additional ? "/readyz" : basePath + "/health/readiness";
		int probePort = additional ? serverPort : managementPort;
		expectProbe(problems, container, "startupProbe", liveness, probePort);
		expectProbe(problems, container, "livenessProbe", liveness, probePort);
		expectProbe(problems, container, "readinessProbe", readiness, probePort);
		Map<String, Object> annotations = at(pod, "metadata", "annotations");
		expect(problems, "annotation prometheus.io/scrape", annotations.get("prometheus.io/scrape"), "true");
		expect(problems, "annotation prometheus.io/path", annotations.get("prometheus.io/path"),
				basePath + "/prometheus");
		expect(problems, "annotation prometheus.io/port", annotations.get("prometheus.io/port"),
				String.valueOf(managementPort));
		String exposed = settings.bind("management.endpoints.web.exposure.include", String.class).orElse("health");
		if (!List.of(exposed.replace(" ", "").split(",")).contains("prometheus")) {
			problems.add("management.endpoints.web.exposure.include does not expose 'prometheus': " + exposed);
		}
		expect(problems, "server.shutdown", settings.bind("server.shutdown", String.class).orElse(null), "graceful");
		Duration phase = settings.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(Duration.ofSeconds(30));
		Duration drain = settings.bind("offload.shutdown.await-termination", Duration.class)
			.orElse(Duration.ofSeconds(10));
		Duration preStop = Duration.ofSeconds(preStopSleepSeconds(container));
		Duration needed = preStop.plus(phase).plus(drain);
		Duration grace = Duration
			.ofSeconds(((Number) podSpec.getOrDefault("terminationGracePeriodSeconds", 30)).longValue());
		if (grace.compareTo(needed) <= 0) {
			problems.add("terminationGracePeriodSeconds " + grace.toSeconds() + " s is not above preStop sleep "
					+ preStop.toSeconds() + " s + timeout-per-shutdown-phase " + phase.toSeconds()
					+ " s + offload.shutdown.await-termination " + drain.toSeconds() + " s = " + needed.toSeconds()
					+ " s");
		}
		Object gpus = at(container, "resources", "limits").get("nvidia.com/gpu");
		if (!(gpus instanceof Number count) || count.intValue() < 1) {
			problems.add("resources.limits['nvidia.com/gpu'] is not at least 1: " + gpus);
		}
		Map<String, Object> servicePort = map(list(at(this.service, "spec").get("ports")).get(0));
		Object target = servicePort.get("targetPort");
		if (!"http".equals(target) && !Objects.equals(target, containerPort)) {
			problems.add("Service targetPort " + target + " is neither 'http' nor " + containerPort);
		}
		expect(problems, "Service selector", at(this.service, "spec").get("selector"),
				at(this.deployment, "spec", "selector").get("matchLabels"));
		return problems;
	}

	private static Binder settings(Map<String, Object> container, List<PropertySource<?>> applicationSettings) {
		Map<String, Object> environment = new LinkedHashMap<>();
		for (Object variable : list(container.getOrDefault("env", List.of()))) {
			environment.put((String) map(variable).get("name"), map(variable).get("value"));
		}
		List<PropertySource<?>> sources = new ArrayList<>();
		sources.add(new SystemEnvironmentPropertySource("container env", environment));
		sources.addAll(applicationSettings);
		return new Binder(ConfigurationPropertySources.from(sources));
	}

	private static void expectProbe(List<String> problems, Map<String, Object> container, String probe, String path,
			int port) {
		Object definition = container.get(probe);
		if (definition == null) {
			problems.add("No " + probe);
			return;
		}
		Map<String, Object> httpGet = at(map(definition), "httpGet");
		expect(problems, probe + " path", httpGet.get("path"), path);
		Object probePort = httpGet.get("port");
		int resolved = (probePort instanceof String name) ? containerPort(container, name)
				: ((Number) probePort).intValue();
		expect(problems, probe + " port", resolved, port);
	}

	private static int containerPort(Map<String, Object> container, String name) {
		for (Object port : list(container.get("ports"))) {
			if (name.equals(map(port).get("name"))) {
				return ((Number) map(port).get("containerPort")).intValue();
			}
		}
		throw new IllegalArgumentException("No container port named '" + name + "'");
	}

	private static long preStopSleepSeconds(Map<String, Object> container) {
		Map<String, Object> lifecycle = map(container.getOrDefault("lifecycle", Map.of()));
		if (!lifecycle.containsKey("preStop")) {
			return 0;
		}
		Map<String, Object> preStop = map(lifecycle.get("preStop"));
		if (preStop.containsKey("sleep")) {
			return ((Number) at(preStop, "sleep").get("seconds")).longValue();
		}
		List<Object> command = list(at(preStop, "exec").get("command"));
		if (command.size() == 2 && "sleep".equals(command.get(0))) {
			return Long.parseLong(String.valueOf(command.get(1)));
		}
		throw new IllegalArgumentException("preStop is neither a sleep action nor 'sleep N': " + preStop);
	}

	private static void expect(List<String> problems, String what, Object actual, Object expected) {
		if (!Objects.equals(actual, expected)) {
			problems.add(what + " is " + actual + ", expected " + expected);
		}
	}

	private static Map<String, Object> at(Map<String, Object> root, String... path) {
		Map<String, Object> node = root;
		for (String key : path) {
			Object child = node.get(key);
			if (child == null) {
				throw new IllegalArgumentException("No '" + key + "' in " + node.keySet());
			}
			node = map(child);
		}
		return node;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	@SuppressWarnings("unchecked")
	private static List<Object> list(Object value) {
		return (List<Object>) value;
	}

}
