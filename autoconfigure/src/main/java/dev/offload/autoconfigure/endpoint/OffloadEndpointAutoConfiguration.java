package dev.offload.autoconfigure.endpoint;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.offload.DeviceRegistry;
import dev.offload.leak.LeakDetector;
import dev.offload.spi.BackendSelection;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint;
import dev.offload.template.OffloadTemplate;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link StreamPoolsEndpoint streampools endpoint}. Like
 * every endpoint but {@code health}, it is exposed over HTTP only when
 * {@code management.endpoints.web.exposure.include} names it.
 */
@AutoConfiguration(afterName = "dev.offload.autoconfigure.OffloadAutoConfiguration")
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(DeviceRegistry.class)
@ConditionalOnAvailableEndpoint(StreamPoolsEndpoint.class)
public final class OffloadEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	StreamPoolsEndpoint streamPoolsEndpoint(DeviceRegistry registry, ObjectProvider<LeakDetector> leakDetector,
			ObjectProvider<BackendSelection> selection, ObjectProvider<OffloadTemplate> template) {
		return new StreamPoolsEndpoint(registry, leakDetector.getIfAvailable(), selection.getIfAvailable(),
				template.getIfAvailable());
	}

}
