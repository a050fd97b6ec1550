package dev.offload.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests a whole application: the auto-configuration found through
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}
 * and the failure analyzers through {@code META-INF/spring.factories}.
 */
@ExtendWith(OutputCaptureExtension.class)
class OffloadApplicationTests {

	@Test
	void applicationWithDefaultsShouldStartOnTheHostBackend() {
		try (ConfigurableApplicationContext context = application().run()) {
			assertThat(context.getBean(DeviceRegistry.class).backend().name()).isEqualTo("host");
			assertThat(context.getBeansOfType(StreamPool.class)).containsOnlyKeys("streamPool0");
		}
	}

	@Test
	void applicationWithBadConfigurationShouldReportTheFailureAnalysis(CapturedOutput output) {
		assertThatException().isThrownBy(() -> application().run("--offload.stream-pool.max-size=-1"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value '-1' for 'offload.stream-pool.max-size'")
			.contains("Set 'offload.stream-pool.max-size' to 0 for a pool without bound");
	}

	@Test
	void applicationWithUnknownBackendShouldListTheBackends(CapturedOutput output) {
		assertThatException().isThrownBy(() -> application().run("--offload.backend=gpu"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("'offload.backend' is 'gpu' (from \"offload.backend\" from property source \"commandLineArgs\")")
			.contains("Set 'offload.backend' to one of auto, cuda, host");
	}

	private static SpringApplicationBuilder application() {
		return new SpringApplicationBuilder(TestApplication.class).web(WebApplicationType.NONE);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TestApplication {

	}

}
