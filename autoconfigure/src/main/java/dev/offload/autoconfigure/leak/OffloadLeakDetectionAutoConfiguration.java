package dev.offload.autoconfigure.leak;

import java.time.Duration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.OffloadProperties;
import dev.offload.autoconfigure.InvalidOffloadConfigurationException;
import dev.offload.leak.LeakDetector;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for Offload's {@link LeakDetector}, when
 * {@code offload.leak-detection-threshold} is set (a duration such as {@code 30s}; zero
 * turns detection off). The detector is an {@link dev.offload.OffloadListener} bean, so
 * the registry's listeners include it.
 */
@AutoConfiguration(afterName = "dev.offload.autoconfigure.OffloadAutoConfiguration")
@ConditionalOnBean(DeviceRegistry.class)
@ConditionalOnProperty(name = OffloadLeakDetectionAutoConfiguration.THRESHOLD_PROPERTY)
@EnableConfigurationProperties(OffloadProperties.class)
public final class OffloadLeakDetectionAutoConfiguration {

	static final String THRESHOLD_PROPERTY = "offload.leak-detection-threshold";

	@Bean
	@ConditionalOnMissingBean
	LeakDetector offloadLeakDetector(OffloadProperties properties, Environment environment) {
		Duration threshold = properties.getLeakDetectionThreshold();
		try {
			return new LeakDetector((threshold != null) ? threshold : Duration.ZERO);
		}
		catch (IllegalArgumentException ex) {
			throw InvalidOffloadConfigurationException.of(environment, THRESHOLD_PROPERTY, threshold, ex.getMessage(),
					"Set '" + THRESHOLD_PROPERTY + "' to a positive duration, such as 30s, or to 0s to turn leak "
							+ "detection off.",
					ex);
		}
	}

}
