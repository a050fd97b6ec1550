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
 * container port and the probes, the Prometheus annotations, a termination grace period
 * that outlasts the shutdown, and a GPU asked for, from the device plugin
 * ({@code nvidia.com/gpu}) or through a resource claim of NVIDIA's DRA device class.
 */
final class KubernetesManifests {

	/** The DRA driver's device class of whole GPUs. */
	static final String GPU_DEVICE_CLASS = "gpu.nvidia.com";

	private final Map<String, Object> deployment;

	private final Map<String, Object> service;

	private final Map<String, Map<String, Object>> claimTemplates;

	private KubernetesManifests(Map<String, Object> deployment, Map<String, Object> service,
			Map<String, Map<String, Object>> claimTemplates) {
		this.deployment = deployment;
		this.service = service;
		this.claimTemplates = claimTemplates;
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
		Map<String, Map<String, Object>> claimTemplates = new LinkedHashMap<>();
		for (Object document : new Yaml().loadAll(yaml)) {
			Map<String, Object> manifest = map(document);
			if ("Deployment".equals(manifest.get("kind"))) {
				deployment = manifest;
			}
			else if ("ResourceClaimTemplate".equals(manifest.get("kind"))) {
				claimTemplates.put((String) at(manifest, "metadata").get("name"), manifest);
			}
			else if ("Service".equals(manifest.get("kind"))) {
				service = manifest;
			}
		}
		if (deployment == null || service == null) {
			throw new IllegalArgumentException(
					"Expected a Deployment and a Service, found " + deployment + " and " + service);
		}
		return new KubernetesManifests(deployment, service, claimTemplates);
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
		gpuProblems(problems, podSpec, container);
		Map<String, Object> servicePort = map(list(at(this.service, "spec").get("ports")).get(0));
		Object target = servicePort.get("targetPort");
		if (!"http".equals(target) && !Objects.equals(target, containerPort)) {
			problems.add("Service targetPort " + target + " is neither 'http' nor " + containerPort);
		}
		expect(problems, "Service selector", at(this.service, "spec").get("selector"),
				at(this.deployment, "spec", "selector").get("matchLabels"));
		return problems;
	}

	/**
	 * Returns the Deployment's pod template without what asks for the GPU (the
	 * {@code nvidia.com/gpu} limit, the pod's resource claims and the container's), so
	 * that two ways of asking can be compared for everything else.
	 * @return a copy of the pod template
	 */
	Map<String, Object> podTemplateWithoutGpuRequest() {
		Map<String, Object> pod = map(deepCopy(at(this.deployment, "spec", "template")));
		Map<String, Object> podSpec = at(pod, "spec");
		podSpec.remove("resourceClaims");
		for (Object container : list(podSpec.get("containers"))) {
			Map<String, Object> resources = map(map(container).getOrDefault("resources", new LinkedHashMap<>()));
			resources.remove("claims");
			map(resources.getOrDefault("limits", new LinkedHashMap<>())).remove("nvidia.com/gpu");
		}
		return pod;
	}

	private void gpuProblems(List<String> problems, Map<String, Object> podSpec, Map<String, Object> container) {
		Map<String, Object> resources = at(container, "resources");
		Object gpus = map(resources.getOrDefault("limits", Map.of())).get("nvidia.com/gpu");
		List<Object> claims = list(resources.getOrDefault("claims", List.of()));
		if (claims.isEmpty()) {
			if (!(gpus instanceof Number count) || count.intValue() < 1) {
				problems.add("resources.limits['nvidia.com/gpu'] is not at least 1: " + gpus);
			}
			return;
		}
		if (gpus != null) {
			problems.add("the container asks for GPUs both as nvidia.com/gpu and through resource claims");
		}
		boolean gpu = false;
		for (Object claim : claims) {
			String name = (String) map(claim).get("name");
			String template = podClaims(podSpec).get(name);
			if (template == null) {
				problems.add("container claim '" + name + "' is not among the pod's resourceClaims with a template");
			}
			else if (!this.claimTemplates.containsKey(template)) {
				problems.add("resourceClaim '" + name + "' names template '" + template + "', which is not defined");
			}
			else {
				gpu |= requestsAGpu(this.claimTemplates.get(template));
			}
		}
		if (!gpu) {
			problems.add("no resource claim of the container requests a device of class " + GPU_DEVICE_CLASS);
		}
	}

	private static Map<String, String> podClaims(Map<String, Object> podSpec) {
		Map<String, String> templates = new LinkedHashMap<>();
		for (Object claim : list(podSpec.getOrDefault("resourceClaims", List.of()))) {
			Object template = map(claim).get("resourceClaimTemplateName");
			if (template != null) {
				templates.put((String) map(claim).get("name"), (String) template);
			}
		}
		return templates;
	}

	private static boolean requestsAGpu(Map<String, Object> template) {
		for (Object request : list(at(template, "spec", "spec", "devices").get("requests"))) {
			Map<String, Object> exactly = map(map(request).getOrDefault("exactly", Map.of()));
			Object count = exactly.getOrDefault("count", 1);
			if (GPU_DEVICE_CLASS.equals(exactly.get("deviceClassName")) && count instanceof Number number
					&& number.intValue() >= 1) {
				return true;
			}
		}
		return false;
	}

	private static Object deepCopy(Object value) {
		if (value instanceof Map<?, ?> source) {
			Map<String, Object> copy = new LinkedHashMap<>();
			source.forEach((key, child) -> copy.put((String) key, deepCopy(child)));
			return copy;
		}
		if (value instanceof List<?> source) {
			return new ArrayList<>(source.stream().map(KubernetesManifests::deepCopy).toList());
		}
		return value;
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
