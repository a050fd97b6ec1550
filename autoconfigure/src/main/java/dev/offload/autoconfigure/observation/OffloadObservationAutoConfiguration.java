package dev.offload.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.offload.DeviceRegistry;
import dev.offload.spring.observation.OffloadObservationListener;
import dev.offload.spring.observation.OffloadSessionObservationConvention;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the
 * {@value dev.offload.spring.observation.DefaultOffloadSessionObservationConvention#NAME}
 * observation around each session, when an {@link ObservationRegistry} bean exists.
 */
@AutoConfiguration(afterName = { "dev.offload.autoconfigure.OffloadAutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ DeviceRegistry.class, ObservationRegistry.class })
public final class OffloadObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	OffloadObservationListener offloadObservationListener(ObservationRegistry observationRegistry,
			ObjectProvider<OffloadSessionObservationConvention> convention) {
		return new OffloadObservationListener(observationRegistry, convention.getIfAvailable());
	}

}
