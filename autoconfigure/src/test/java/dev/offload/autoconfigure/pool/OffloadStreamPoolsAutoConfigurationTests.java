package dev.offload.autoconfigure.pool;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.NoSuchDeviceException;
import dev.offload.StreamPool;
import dev.offload.StreamPools;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.spring.pool.DevicePool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadStreamPoolsAutoConfiguration} and the {@link DevicePool}
 * qualifier.
 */
class OffloadStreamPoolsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadStreamPoolsAutoConfiguration.class))
		.withPropertyValues("offload.backend=host", "offload.host.device-count=3");

	@Test
	void streamPoolsShouldGiveEachDevicesPoolById() {
		this.contextRunner.run((context) -> {
			StreamPools pools = context.getBean(StreamPools.class);
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(pools.get(2)).isSameAs(registry.device(2).streamPool())
				.isSameAs(context.getBean("streamPool2", StreamPool.class));
			assertThatExceptionOfType(NoSuchDeviceException.class).isThrownBy(() -> pools.get(3))
				.withMessage("No device with id 3; the devices are [0, 1, 2]");
		});
	}

	@Test
	void devicePoolQualifierShouldInjectThatDevicesPool() {
		this.contextRunner.withUserConfiguration(WatcherConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Watcher.class).pool)
				.isSameAs(context.getBean(DeviceRegistry.class).device(1).streamPool());
		});
	}

	@Test
	void devicePoolQualifierWithAnUnknownIdShouldFailTheContext() {
		this.contextRunner.withPropertyValues("offload.host.device-count=1")
			.withUserConfiguration(WatcherConfiguration.class)
			.run((context) -> assertThat(context).hasFailed().getFailure().hasMessageContaining("DevicePool(1)"));
	}

	@Configuration(proxyBeanMethods = false)
	static class WatcherConfiguration {

		@Bean
		Watcher watcher(@DevicePool(1) StreamPool pool) {
			return new Watcher(pool);
		}

	}

	record Watcher(StreamPool pool) {

	}

}
