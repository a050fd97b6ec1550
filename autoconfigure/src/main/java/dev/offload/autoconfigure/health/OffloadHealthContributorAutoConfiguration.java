package dev.offload.autoconfigure.health;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.offload.DeviceRegistry;
import dev.offload.spi.BackendSelection;
import dev.offload.spring.actuate.health.OffloadHealthIndicator;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link OffloadHealthIndicator offload health indicator}, on
 * unless {@code management.health.offload.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.offload.autoconfigure.OffloadAutoConfiguration",
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(DeviceRegistry.class)
@ConditionalOnEnabledHealthIndicator("offload")
public final class OffloadHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "offloadHealthIndicator", "offloadHealthContributor" })
	OffloadHealthIndicator offloadHealthIndicator(DeviceRegistry registry, ObjectProvider<BackendSelection> selection) {
		return new OffloadHealthIndicator(registry, selection.getIfAvailable());
	}

}
