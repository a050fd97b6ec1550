package dev.offload.sample.ops;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes manifests under {@code ops/kubernetes} agree with the sample app's {@code application.yml}: ports,
 * probe paths, Prometheus annotations, and a grace period above preStop sleep + phase timeout + Offload's drain.
 */
class KubernetesManifestsTests {

	private static final String DEPLOYMENT = "kubernetes/deployment.yaml";

	@Test
	void deploymentShouldAgreeWithTheSampleAppsSettings() throws IOException {
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT)).problems(sampleAppSettings())).isEmpty();
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
			.replace("path: /actuator/health/readiness", "path: /actuator/health")
			.replace("containerPort: 8080", "containerPort: 9090");
		assertThat(KubernetesManifests.parse(manifest).problems(sampleAppSettings())).contains(
				"containerPort 'http' is 9090, expected 8080",
				"readinessProbe path is /actuator/health, expected /actuator/health/readiness",
				"livenessProbe port is 9090, expected 8080");
	}

	@Test
	void problemsWhenSettingsLengthenTheShutdownShouldFlagTheGracePeriod() throws IOException {
		PropertySource<?> override = new MapPropertySource("override",
				Map.of("offload.shutdown.await-termination", "30s"));
		Binder longer = new Binder(
				ConfigurationPropertySources.from(List.of(override, sampleAppSources().get(0))));
		assertThat(KubernetesManifests.parse(OpsFiles.read(DEPLOYMENT)).problems(longer))
			.anySatisfy((problem) -> assertThat(problem).contains("offload.shutdown.await-termination 30 s"));
	}

	private static Binder sampleAppSettings() throws IOException {
		return new Binder(ConfigurationPropertySources.from(sampleAppSources()));
	}

	private static List<PropertySource<?>> sampleAppSources() throws IOException {
		return new YamlPropertySourceLoader().load("application.yml", new ClassPathResource("application.yml"));
	}

}
