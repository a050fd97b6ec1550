package dev.offload.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.spring.pool.DevicePool;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs Spring AOT on a context with the auto-configuration and a bean that injects
 * {@code @DevicePool(1) StreamPool}, compiles the generated code and starts a context
 * from it, as a native image or {@code -Dspring.aot.enabled=true} would.
 */
class StreamPoolAotCompiledTests {

	@Test
	@CompileWithForkedClassLoader
	void poolInjectionWhenStartedFromGeneratedCodeShouldGetTheListedDevicesPool() {
		GenericApplicationContext build = new GenericApplicationContext();
		TestPropertyValues
			.of("offload.backend=host", "offload.devices=0,1", "offload.host.device-count=2",
					AbstractAotProcessor.AOT_PROCESSING + "=true")
			.applyTo(build);
		AnnotationConfigUtils.registerAnnotationConfigProcessors(build);
		build.registerBean(PoolUserConfiguration.class);
		TestGenerationContext generated = new TestGenerationContext();
		ApplicationContextAotGenerator generator = new ApplicationContextAotGenerator();
		generator.processAheadOfTime(build, generated);
		generated.writeGeneratedContent();
		TestCompiler.forSystem().with(generated).compile((compiled) -> {
			try (GenericApplicationContext run = new GenericApplicationContext()) {
				// The run's own settings: the device count is read now, not at build
				// time.
				TestPropertyValues.of("offload.backend=host", "offload.devices=0,1", "offload.host.device-count=3")
					.applyTo(run);
				ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
					.getInstance(ApplicationContextInitializer.class);
				initializer.initialize(run);
				run.refresh();
				DeviceRegistry registry = run.getBean(DeviceRegistry.class);
				assertThat(registry.devices()).hasSize(2);
				assertThat(run.getBean(PoolUser.class).pool()).isSameAs(registry.device(1).streamPool());
				assertThat(run.getBean("streamPool0", StreamPool.class)).isSameAs(registry.device(0).streamPool());
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(OffloadAutoConfiguration.class)
	static class PoolUserConfiguration {

		@Bean
		PoolUser poolUser(@DevicePool(1) StreamPool pool) {
			return new PoolUser(pool);
		}

	}

	record PoolUser(StreamPool pool) {

	}

}
