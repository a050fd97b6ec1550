package dev.offload.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.autoconfigure.leak.OffloadLeakDetectionAutoConfiguration;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadEndpointAutoConfiguration}.
 */
class OffloadEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(OffloadLeakDetectionAutoConfiguration.class, OffloadEndpointAutoConfiguration.class));

	@Test
	void endpointWhenExposedShouldBeCreated() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=streampools")
			.run((context) -> assertThat(context).hasSingleBean(StreamPoolsEndpoint.class));
	}

	@Test
	void endpointWhenNotExposedShouldBackOff() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(StreamPoolsEndpoint.class));
	}

	@Test
	void endpointWhenAccessIsNoneShouldBackOff() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=streampools",
					"management.endpoint.streampools.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(StreamPoolsEndpoint.class));
	}

	@Test
	void endpointWhenNoDeviceRegistryShouldBackOff() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=streampools")
			.run((context) -> assertThat(context).doesNotHaveBean(StreamPoolsEndpoint.class));
	}

	@Test
	void endpointWhenLeakDetectionIsOnShouldShowTheThreshold() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=streampools",
					"offload.leak-detection-threshold=2s")
			.run((context) -> assertThat(
					context.getBean(StreamPoolsEndpoint.class).streamPools().leakDetectionThreshold())
				.isEqualTo("PT2S"));
	}

	@Test
	void endpointWhenBackendIsSelectedShouldSayWhy() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=streampools", "offload.backend=host",
					"offload.host.device-count=2")
			.run((context) -> {
				StreamPoolsEndpoint.StreamPoolsDescriptor pools = context.getBean(StreamPoolsEndpoint.class)
					.streamPools();
				assertThat(pools.backendReason()).isEqualTo("'offload.backend' is 'host'");
				assertThat(pools.backendBinding()).isEqualTo("host");
			});
	}

	@Test
	void endpointWhenApplicationRegistryShouldNotGiveAReason() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=streampools")
			.run((context) -> assertThat(context.getBean(StreamPoolsEndpoint.class).streamPools().backendReason())
				.isNull());
	}

	@Test
	void endpointWhenUserDefinesOneShouldBackOff() {
		this.contextRunner.withUserConfiguration(HostDeviceRegistryConfiguration.class, UserEndpointConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=streampools")
			.run((context) -> assertThat(context).hasSingleBean(StreamPoolsEndpoint.class).hasBean("myEndpoint"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserEndpointConfiguration {

		@Bean
		StreamPoolsEndpoint myEndpoint(DeviceRegistry registry) {
			return new StreamPoolsEndpoint(registry, null);
		}

	}

}
