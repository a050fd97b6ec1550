package dev.offload.autoconfigure.pool;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPools;
import dev.offload.autoconfigure.OffloadAutoConfiguration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of {@link StreamPools}, the registry's pools by device id, so that
 * code picks a device's pool with {@code pools.get(1)}.
 */
@AutoConfiguration(after = OffloadAutoConfiguration.class)
@ConditionalOnSingleCandidate(DeviceRegistry.class)
public final class OffloadStreamPoolsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	StreamPools offloadStreamPools(DeviceRegistry registry) {
		return new StreamPools(registry);
	}

}
