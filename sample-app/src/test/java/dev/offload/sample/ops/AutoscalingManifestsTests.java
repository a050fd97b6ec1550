package dev.offload.sample.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The autoscalers under {@code ops/} fit together: the KEDA {@code ScaledObject} and the
 * HPA scale the Deployment of {@code deployment.yaml}, the HPA asks only for custom
 * metrics that the prometheus-adapter rules serve, and every signal has a threshold.
 * (That the queries read exported metrics is {@link OpsMetricNamesTests}' part.)
 */
class AutoscalingManifestsTests {

	private static final String DEPLOYMENT = "kubernetes/deployment.yaml";

	private static final String HPA = "kubernetes/hpa.yaml";

	@Test
	void autoscalersShouldAgreeWithTheDeploymentAndTheAdapterRules() {
		assertThat(problems(OpsFiles.read(HPA), OpsFiles.read(OpsMetricNamesTests.SCALED_OBJECT),
				OpsFiles.read(OpsMetricNamesTests.ADAPTER_RULES)))
			.isEmpty();
	}

	@Test
	void problemsWhenTheHpaAsksForAMetricNoRuleServesShouldNameIt() {
		String hpa = OpsFiles.read(HPA).replace("name: offload_lane_use", "name: offload_lanes_used");
		assertThat(problems(hpa, OpsFiles.read(OpsMetricNamesTests.SCALED_OBJECT),
				OpsFiles.read(OpsMetricNamesTests.ADAPTER_RULES)))
			.containsExactly("HPA metric offload_lanes_used is served by no prometheus-adapter rule");
	}

	@Test
	void problemsWhenATargetIsElsewhereOrAThresholdMissingShouldSaySo() {
		String scaledObject = OpsFiles.read(OpsMetricNamesTests.SCALED_OBJECT)
			.replace("  scaleTargetRef:\n    name: offload-sample", "  scaleTargetRef:\n    name: offload-other")
			.replace("threshold: \"0.75\"", "activationThreshold: \"0.75\"");
		assertThat(problems(OpsFiles.read(HPA), scaledObject, OpsFiles.read(OpsMetricNamesTests.ADAPTER_RULES)))
			.containsExactly("ScaledObject scales offload-other, not the Deployment offload-sample",
					"ScaledObject trigger lane-use has no threshold");
	}

	private static List<String> problems(String hpaYaml, String scaledObjectYaml, String adapterYaml) {
		List<String> problems = new ArrayList<>();
		String deployment = (String) map(load(OpsFiles.read(DEPLOYMENT), "Deployment").get("metadata")).get("name");
		Map<String, Object> hpa = map(load(hpaYaml, "HorizontalPodAutoscaler").get("spec"));
		Map<String, Object> scaledObject = map(load(scaledObjectYaml, "ScaledObject").get("spec"));
		expectTarget(problems, "HPA", map(hpa.get("scaleTargetRef")), deployment);
		expectTarget(problems, "ScaledObject", map(scaledObject.get("scaleTargetRef")), deployment);
		Set<String> served = new TreeSet<>();
		for (Object rule : list(map(new Yaml().load(adapterYaml)).get("rules"))) {
			served.add((String) map(map(rule).get("name")).get("as"));
		}
		for (Object metric : list(hpa.get("metrics"))) {
			Map<String, Object> pods = map(map(metric).get("pods"));
			String name = (String) map(pods.get("metric")).get("name");
			if (!served.contains(name)) {
				problems.add("HPA metric " + name + " is served by no prometheus-adapter rule");
			}
			if (map(pods.get("target")).get("averageValue") == null) {
				problems.add("HPA metric " + name + " has no averageValue target");
			}
		}
		for (Object trigger : list(scaledObject.get("triggers"))) {
			if (map(map(trigger).get("metadata")).get("threshold") == null) {
				problems.add("ScaledObject trigger " + map(trigger).get("name") + " has no threshold");
			}
		}
		return problems;
	}

	private static void expectTarget(List<String> problems, String what, Map<String, Object> target,
			String deployment) {
		if (!deployment.equals(target.get("name"))) {
			problems.add(what + " scales " + target.get("name") + ", not the Deployment " + deployment);
		}
	}

	private static Map<String, Object> load(String yaml, String kind) {
		for (Object document : new Yaml().loadAll(yaml)) {
			if (kind.equals(map(document).get("kind"))) {
				return map(document);
			}
		}
		throw new IllegalArgumentException("No " + kind + " in the manifest");
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
