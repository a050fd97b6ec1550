package dev.offload.autoconfigure.availability;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.health.application.ReadinessStateHealthIndicator;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.spring.actuate.health.OffloadReadinessStateHealthIndicator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadAvailabilityAutoConfiguration}.
 */
class OffloadAvailabilityAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("offload.backend=host")
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class,
				ApplicationAvailabilityAutoConfiguration.class, AvailabilityHealthContributorAutoConfiguration.class,
				AvailabilityProbesAutoConfiguration.class, OffloadAvailabilityAutoConfiguration.class));

	@Test
	void readinessIndicatorByDefaultShouldBeOffloads() {
		this.contextRunner.run((context) -> assertThat(context.getBean("readinessStateHealthIndicator"))
			.isInstanceOf(OffloadReadinessStateHealthIndicator.class));
	}

	@Test
	void readinessIndicatorWhenOnlySaturationIsOnShouldBeOffloads() {
		this.contextRunner
			.withPropertyValues("offload.health.readiness.on-device-failure=false",
					"offload.health.readiness.on-saturation=true")
			.run((context) -> assertThat(context.getBean("readinessStateHealthIndicator"))
				.isInstanceOf(OffloadReadinessStateHealthIndicator.class));
	}

	@Test
	void readinessIndicatorWhenBothRulesAreOffShouldBeBoots() {
		this.contextRunner.withPropertyValues("offload.health.readiness.on-device-failure=false")
			.run((context) -> assertThat(context.getBean("readinessStateHealthIndicator"))
				.isExactlyInstanceOf(ReadinessStateHealthIndicator.class));
	}

	@Test
	void readinessIndicatorWhenProbesAreOffShouldNotBeCreated() {
		this.contextRunner.withPropertyValues("management.endpoint.health.probes.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadReadinessStateHealthIndicator.class));
	}

	@Test
	void readinessIndicatorWhenUserDefinesOneShouldBackOff() {
		this.contextRunner
			.withBean("readinessStateHealthIndicator", ReadinessStateHealthIndicator.class,
					() -> new ReadinessStateHealthIndicator(new ApplicationAvailabilityBean()))
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadReadinessStateHealthIndicator.class));
	}

}
