package dev.offload.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the overload settings: {@code offload.session.timeout} and
 * {@code offload.stream-pool.lanes}.
 */
class OverloadPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
		.withPropertyValues("offload.backend=host");

	private static Throwable invalidConfiguration(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidOffloadConfigurationException) {
				return cause;
			}
		}
		return failure;
	}

	@Test
	void sessionTimeoutShouldApplyToSessionsOpenedWithoutOne() {
		this.contextRunner.withPropertyValues("offload.session.timeout=3s").run((context) -> {
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession()) {
				assertThat(session.timeout()).isEqualTo(Duration.ofSeconds(3));
			}
		});
	}

	@Test
	void sessionTimeoutWhenUnsetShouldBeNone() {
		this.contextRunner.run((context) -> {
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession()) {
				assertThat(session.timeout()).isNull();
			}
		});
	}

	@Test
	void lanesShouldReachEveryPoolIncludingDevicesWithTheirOwnSettings() {
		this.contextRunner.withPropertyValues("offload.host.device-count=2", "offload.stream-pool.max-size=32",
				"offload.stream-pool.lanes.normal.max-sessions=24",
				"offload.stream-pool.lanes.normal.borrow-timeout=2s", "offload.stream-pool.lanes.high.max-sessions=8",
				"offload.devices-config.1.stream-pool.initial-size=4")
			.run((context) -> {
				StreamPoolConfig expected = new StreamPoolConfig(32, 32, Duration.ofSeconds(30))
					.withLane(StreamPriority.NORMAL, 24, Duration.ofSeconds(2))
					.withLane(StreamPriority.HIGH, 8, null);
				assertThat(context.getBean("streamPool0", StreamPool.class).config()).isEqualTo(expected);
				assertThat(context.getBean("streamPool1", StreamPool.class).config())
					.isEqualTo(expected.withInitialSize(4));
			});
	}

	@Test
	void laneAboveTheMaxSizeShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("offload.stream-pool.initial-size=4", "offload.stream-pool.max-size=16",
					"offload.stream-pool.lanes.normal.max-sessions=20")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure()))
				.isInstanceOfSatisfying(InvalidOffloadConfigurationException.class, (ex) -> {
					assertThat(ex.getProperty()).isEqualTo("offload.stream-pool.lanes.normal.max-sessions");
					assertThat(ex.getReason())
						.isEqualTo("lanes.NORMAL.maxSessions must be at most maxSize (16), was 20");
				}));
	}

	@Test
	void laneWithoutMaxSessionsShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.stream-pool.lanes.high.borrow-timeout=1s")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure())).isInstanceOfSatisfying(
					InvalidOffloadConfigurationException.class,
					(ex) -> assertThat(ex.getProperty()).isEqualTo("offload.stream-pool.lanes.high.max-sessions")));
	}

	@Test
	void laneBorrowTimeoutOfZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("offload.stream-pool.lanes.high.max-sessions=2",
					"offload.stream-pool.lanes.high.borrow-timeout=0s")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure())).isInstanceOfSatisfying(
					InvalidOffloadConfigurationException.class,
					(ex) -> assertThat(ex.getProperty()).isEqualTo("offload.stream-pool.lanes.high.borrow-timeout")));
	}

	@Test
	void sessionTimeoutOfZeroShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.session.timeout=0s")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure())).isInstanceOfSatisfying(
					InvalidOffloadConfigurationException.class,
					(ex) -> assertThat(ex.getProperty()).isEqualTo("offload.session.timeout")));
	}

}
