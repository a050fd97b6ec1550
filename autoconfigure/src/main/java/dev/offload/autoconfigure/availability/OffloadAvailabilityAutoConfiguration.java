package dev.offload.autoconfigure.availability;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.application.ReadinessStateHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.OffloadProperties;
import dev.offload.spring.actuate.health.OffloadReadinessStateHealthIndicator;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} that lets the devices take the application out of readiness: it
 * replaces Spring Boot's {@code readinessStateHealthIndicator} with an
 * {@link OffloadReadinessStateHealthIndicator} when the health probes are enabled (the
 * default) and {@code offload.health.readiness.on-device-failure} (the default) or
 * {@code offload.health.readiness.on-saturation} is on. The liveness probe is left alone.
 */
@AutoConfiguration(
		afterName = { "dev.offload.autoconfigure.OffloadAutoConfiguration",
				"org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration" },
		beforeName = {
				OffloadAvailabilityAutoConfiguration.BOOT_HEALTH
						+ "application.AvailabilityHealthContributorAutoConfiguration",
				OffloadAvailabilityAutoConfiguration.BOOT_HEALTH
						+ "actuate.endpoint.AvailabilityProbesAutoConfiguration" })
@ConditionalOnClass(ReadinessStateHealthIndicator.class)
@ConditionalOnBean({ DeviceRegistry.class, ApplicationAvailability.class })
@ConditionalOnBooleanProperty(name = "management.endpoint.health.probes.enabled", matchIfMissing = true)
@Conditional(OffloadAvailabilityAutoConfiguration.OnReadinessRule.class)
@EnableConfigurationProperties(OffloadProperties.class)
public final class OffloadAvailabilityAutoConfiguration {

	static final String BOOT_HEALTH = "org.springframework.boot.health.autoconfigure.";

	@Bean
	@ConditionalOnMissingBean(name = "readinessStateHealthIndicator")
	OffloadReadinessStateHealthIndicator readinessStateHealthIndicator(ApplicationAvailability availability,
			DeviceRegistry registry, OffloadProperties properties) {
		OffloadProperties.Readiness readiness = properties.getHealth().getReadiness();
		return new OffloadReadinessStateHealthIndicator(availability, registry, readiness.isOnDeviceFailure(),
				readiness.isOnSaturation());
	}

	/**
	 * Matches when at least one device condition takes the application out of readiness.
	 */
	static final class OnReadinessRule extends AnyNestedCondition {

		OnReadinessRule() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnBooleanProperty(name = "offload.health.readiness.on-device-failure", matchIfMissing = true)
		static final class OnDeviceFailure {

		}

		@ConditionalOnBooleanProperty(name = "offload.health.readiness.on-saturation")
		static final class OnSaturation {

		}

	}

}
