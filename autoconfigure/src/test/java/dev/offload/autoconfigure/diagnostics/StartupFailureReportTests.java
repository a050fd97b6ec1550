package dev.offload.autoconfigure.diagnostics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.StreamPool;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.spring.pool.DevicePool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Startup failures as an application sees them, through {@link SpringApplication} and
 * every failure analyzer on the class path (Boot's own included): a report with a
 * description and an action, never a raw stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTests {

	@Test
	void devicePoolWhenTheDeviceDoesNotExistShouldReportTheDevicesThatDo(CapturedOutput output) {
		fail(DevicePoolConfiguration.class);
		assertReported(output, "@DevicePool(1) asks for the stream pool of device 1, which does not exist",
				"the devices are [0]", "Use @DevicePool with one of the device ids [0]",
				"raise 'offload.host.device-count'");
	}

	@Test
	void streamPoolQualifierWhenTheDeviceDoesNotExistShouldReportTheDevicesThatDo(CapturedOutput output) {
		fail(QualifierConfiguration.class);
		assertReported(output, "@Qualifier(\"streamPool1\") asks for the stream pool of device 1, which does not exist",
				"the devices are [0]");
	}

	private static void fail(Class<?> configuration) {
		SpringApplication application = new SpringApplication(configuration);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--offload.host.device-count=1"));
	}

	private static void assertReported(CapturedOutput output, String... parts) {
		assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
			.contains("Description:")
			.contains("Action:")
			.contains(parts)
			.doesNotContain("Application run failed");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(OffloadAutoConfiguration.class)
	static class DevicePoolConfiguration {

		@Bean
		String secondPoolUser(@DevicePool(1) StreamPool pool) {
			return pool.toString();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(OffloadAutoConfiguration.class)
	static class QualifierConfiguration {

		@Bean
		String secondPoolUser(@Qualifier("streamPool1") StreamPool pool) {
			return pool.toString();
		}

	}

}
