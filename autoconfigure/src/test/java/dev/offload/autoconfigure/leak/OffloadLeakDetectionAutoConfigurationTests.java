package dev.offload.autoconfigure.leak;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.leak.LeakDetector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link OffloadLeakDetectionAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class OffloadLeakDetectionAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadLeakDetectionAutoConfiguration.class))
		.withUserConfiguration(HostDeviceRegistryConfiguration.class);

	@Test
	void leakDetectorWhenThresholdSetShouldBeCreated() {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=2s").run((context) -> {
			assertThat(context).hasSingleBean(LeakDetector.class);
			assertThat(context.getBean(LeakDetector.class).threshold()).isEqualTo(Duration.ofSeconds(2));
		});
	}

	@Test
	void leakDetectorWhenThresholdIsAPlainNumberShouldReadMilliseconds() {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=1500")
			.run((context) -> assertThat(context.getBean(LeakDetector.class).threshold())
				.isEqualTo(Duration.ofMillis(1500)));
	}

	@Test
	void leakDetectorWhenThresholdNotSetShouldNotBeCreated() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LeakDetector.class));
	}

	@Test
	void leakDetectorWhenThresholdIsZeroShouldBeDisabled() {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=0")
			.run((context) -> assertThat(context.getBean(LeakDetector.class).isEnabled()).isFalse());
	}

	@Test
	void leakDetectorWhenThresholdIsNegativeShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("leakDetectionThreshold must be at least 0"));
	}

	@Test
	void leakDetectorWhenNoDeviceRegistryShouldNotBeCreated() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(OffloadLeakDetectionAutoConfiguration.class))
			.withPropertyValues("offload.leak-detection-threshold=2s")
			.run((context) -> assertThat(context).doesNotHaveBean(LeakDetector.class));
	}

	@Test
	void sessionWhenLeakedShouldLogOnceWithTheOpenersStackAndThenItsClose(CapturedOutput output) {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=100ms").run((context) -> {
			LeakDetector detector = context.getBean(LeakDetector.class);
			OffloadSession session = openForgottenSession(context.getBean(DeviceRegistry.class));
			await().atMost(Duration.ofSeconds(10)).until(() -> detector.leakedSessions(1) == 1);
			session.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("was closed after"));
			assertThat(output.getOut()).containsOnlyOnce("it may have leaked")
				.contains("Session " + session.id() + " on device 1 (Host device 1) has been open for more than 100 ms")
				.contains("java.lang.Throwable: Session opened here")
				.contains(
						"at dev.offload.autoconfigure.leak.OffloadLeakDetectionAutoConfigurationTests.openForgottenSession")
				.containsPattern("Session " + session.id()
						+ " on device 1 \\(Host device 1\\), reported as a possible leak, was closed after \\d+ ms");
		});
	}

	private static OffloadSession openForgottenSession(DeviceRegistry registry) {
		OffloadSession session = registry.openSession(1);
		session.streamId();
		return session;
	}

}
