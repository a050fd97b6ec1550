package dev.offload.autoconfigure.health;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.spring.actuate.health.OffloadHealthIndicator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadHealthContributorAutoConfiguration}.
 */
class OffloadHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadHealthContributorAutoConfiguration.class));

	@Test
	void healthIndicatorWhenDeviceRegistryExistsShouldBeCreated() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(OffloadHealthIndicator.class)
				.hasBean("offloadHealthIndicator"));
	}

	@Test
	void healthIndicatorWhenNoDeviceRegistryShouldBackOff() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(OffloadHealthIndicator.class));
	}

	@Test
	void healthIndicatorWhenDisabledShouldBackOff() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("management.health.offload.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadHealthIndicator.class));
	}

	@Test
	void healthIndicatorWhenBackendIsAutoAndHostShouldNoteTheFallbackAndWhy() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("jcuda"))
			.withPropertyValues("offload.backend=auto")
			.run((context) -> assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails())
				.containsEntry("note", OffloadHealthIndicator.HOST_FALLBACK_NOTE)
				.containsEntry("reason", "JCuda (jcuda.driver.JCudaDriver) is not on the classpath"));
	}

	@Test
	void healthIndicatorWhenApplicationRegistryIsOnHostShouldNotNoteAFallback() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("offload.backend=auto")
			.run((context) -> assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails())
				.doesNotContainKey("note"));
	}

	@Test
	void healthIndicatorWhenBackendIsHostShouldNotNoteAFallback() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("offload.backend=host")
			.run((context) -> assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails())
				.doesNotContainKey("note"));
	}

	@Test
	void healthIndicatorWhenUserDefinesOneShouldBackOff() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withBean("offloadHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build())
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadHealthIndicator.class)
				.hasBean("offloadHealthIndicator"));
	}

	@Test
	void healthIndicatorOnTheHostBackendShouldSayWhyNoGpuFaultIsWatched() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withPropertyValues("offload.backend=host")
			.run((context) -> assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails())
				.containsEntry("gpuFaults", "not watched: the host backend has no GPU to report faults"));
	}

	@Test
	void healthIndicatorWhenNvmlHealthIsOffShouldSaySo() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withPropertyValues("offload.backend=host", "offload.health.nvml.enabled=false")
			.run((context) -> assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails())
				.containsEntry("gpuFaults", "not watched: turned off (offload.health.nvml.enabled=false)"));
	}

}
