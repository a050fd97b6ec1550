package dev.offload.sample.ops;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes manifests under {@code ops/kubernetes} agree with the sample app's
 * {@code application.yml}: ports, probe paths, Prometheus annotations, and a grace period
 * above preStop sleep + phase timeout + Offload's drain.
 */
class KubernetesManifestsTests {

	private static final String DEPLOYMENT = "kubernetes/deployment.yaml";

	private static final String DEPLOYMENT_DRA = "kubernetes/deployment-dra.yaml";

	@Test
	void deploymentShouldAgreeWithTheSampleAppsSettings() throws IOException {
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT)).problems(sampleAppSettings())).isEmpty();
	}

	@Test
	void draDeploymentShouldAgreeWithTheSampleAppsSettings() throws IOException {
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT_DRA)).problems(sampleAppSettings())).isEmpty();
	}

	@Test
	void draDeploymentShouldDifferFromTheDevicePluginsOnlyInHowItAsksForTheGpu() {
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT_DRA)).podTemplateWithoutGpuRequest())
			.isEqualTo(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT)).podTemplateWithoutGpuRequest());
	}

	@Test
	void problemsWhenTheClaimNamesAMissingTemplateShouldNameIt() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT_DRA)
			.replace("resourceClaimTemplateName: offload-sample-gpu", "resourceClaimTemplateName: other-gpu");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).containsExactly(
				"resourceClaim 'gpu' names template 'other-gpu', which is not defined",
				"no resource claim of the container requests a device of class gpu.nvidia.com");
	}

	@Test
	void problemsWhenTheTemplateAsksForAnotherDeviceClassShouldSaySo() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT_DRA)
			.replace("deviceClassName: gpu.nvidia.com", "deviceClassName: mig.nvidia.com");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings()))
			.containsExactly("no resource claim of the container requests a device of class gpu.nvidia.com");
	}

	@Test
	void problemsWhenGracePeriodIsTooShortShouldSaySo() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT)
			.replace("terminationGracePeriodSeconds: 45", "terminationGracePeriodSeconds: 30");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).singleElement()
			.asString()
			.startsWith("terminationGracePeriodSeconds 30 s is not above preStop sleep 5 s");
	}

	@Test
	void problemsWhenProbesPointElsewhereShouldNameEach() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT)
			.replace("path: /readyz", "path: /actuator/health")
			.replace("containerPort: 8080", "containerPort: 9090");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).contains(
				"containerPort 'http' is 9090, expected 8080",
				"readinessProbe path is /actuator/health, expected /readyz",
				"livenessProbe port is 9090, expected 8080");
	}

	@Test
	void problemsWhenTheActuatorStaysOnLocalhostShouldSayPrometheusCannotReachIt() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT).replace("value: \"0.0.0.0\"", "value: \"127.0.0.1\"");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).containsExactly(
				"management.server.address is 127.0.0.1: Prometheus cannot reach port 8081 from outside the pod");
	}

	@Test
	void problemsWhenProbesUseTheActuatorPortWithoutAdditionalPathsShouldNameThePaths() throws IOException {
		String manifest = OpsFiles.read(DEPLOYMENT)
			.replace("MANAGEMENT_ENDPOINT_HEALTH_PROBES_ADD_ADDITIONAL_PATHS", "UNRELATED_VARIABLE");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).contains(
				"livenessProbe path is /livez, expected /actuator/health/liveness",
				"readinessProbe port is 8080, expected 8081");
	}

	@Test
	void problemsWhenSettingsLengthenTheShutdownShouldFlagTheGracePeriod() throws IOException {
		PropertySource<?> override = new MapPropertySource("override",
				Map.of("offload.shutdown.await-termination", "30s"));
		List<PropertySource<?>> longer = List.of(override, sampleAppSettings().get(0));
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT)).problems(longer))
			.anySatisfy((problem) -> assertThat(problem).contains("offload.shutdown.await-termination 30 s"));
	}

	private static List<PropertySource<?>> sampleAppSettings() throws IOException {
		return new YamlPropertySourceLoader().load("application.yml", new ClassPathResource("application.yml"));
	}

}
