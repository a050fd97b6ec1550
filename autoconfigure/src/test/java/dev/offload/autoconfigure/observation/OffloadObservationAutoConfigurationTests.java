package dev.offload.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.spring.observation.DefaultOffloadSessionObservationConvention;
import dev.offload.spring.observation.OffloadObservationListener;
import dev.offload.spring.observation.OffloadObservationListenerTests;
import dev.offload.spring.observation.OffloadSessionObservationConvention;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadObservationAutoConfiguration}.
 */
class OffloadObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ObservationAutoConfiguration.class, OffloadObservationAutoConfiguration.class))
		.withUserConfiguration(HostDeviceRegistryConfiguration.class)
		.withBean(OffloadObservationListenerTests.RecordingHandler.class,
				OffloadObservationListenerTests.RecordingHandler::new);

	@Test
	void observationListenerWhenObservationRegistryExistsShouldObserveSessions() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(OffloadObservationListener.class);
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession(0)) {
				assertThat(session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE)).isNotNull();
			}
			assertThat(context.getBean(OffloadObservationListenerTests.RecordingHandler.class).stopped).hasSize(1);
		});
	}

	@Test
	void observationListenerWhenObservationRegistryHasNoHandlerShouldNotObserve() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
					OffloadObservationAutoConfiguration.class))
			.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.run((context) -> {
				try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession(0)) {
					assertThat(session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE)).isNull();
				}
			});
	}

	@Test
	void observationListenerWhenNoObservationRegistryShouldBackOff() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(OffloadObservationAutoConfiguration.class))
			.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadObservationListener.class));
	}

	@Test
	void observationListenerWhenConventionBeanExistsShouldUseIt() {
		this.contextRunner.withBean(OffloadSessionObservationConvention.class,
				() -> new DefaultOffloadSessionObservationConvention() {

					@Override
					public String getName() {
						return "gpu.work";
					}

				})
			.run((context) -> {
				assertThat(context).hasSingleBean(ObservationRegistry.class);
				try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession(0)) {
					Object observation = session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE);
					assertThat(((Observation) observation).getContext().getName()).isEqualTo("gpu.work");
				}
			});
	}

}
