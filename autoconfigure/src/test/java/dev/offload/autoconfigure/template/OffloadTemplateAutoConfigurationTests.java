package dev.offload.autoconfigure.template;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.InvalidOffloadConfigurationException;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.backend.host.HostBackend;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.MathMode;
import dev.offload.spring.aop.OffloadAnnotationBeanPostProcessor;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class OffloadTemplateAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class));

	@Test
	void templateWhenRegistryDefinedShouldBeCreatedWithTheAdvice() {
		this.contextRunner.withUserConfiguration(RegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(OffloadTemplate.class);
			assertThat(context).hasSingleBean(OffloadAnnotationBeanPostProcessor.class);
			assertThat(context.getBean(OffloadTemplate.class).registry())
				.isSameAs(context.getBean(DeviceRegistry.class));
		});
	}

	@Test
	void templateShouldRunBlasWithTheLibraryOfTheBlasProperties() {
		this.contextRunner.withUserConfiguration(RegistryConfiguration.class)
			.withPropertyValues("offload.blas.library=/opt/cuda/lib64/libcublas.so.13",
					"offload.blas.workspace-size=32MB", "offload.blas.math-mode=tf32")
			.run((context) -> {
				BlasLibrary library = context.getBean(BlasLibrary.class);
				assertThat(library.libraryPath()).isEqualTo("/opt/cuda/lib64/libcublas.so.13");
				assertThat(library.workspaceBytes()).hasValue(32L << 20);
				assertThat(library.mathMode()).isEqualTo(MathMode.TF32);
				OffloadTemplate template = context.getBean(OffloadTemplate.class);
				assertThat(template.blasLibrary()).isSameAs(library);
				// The host emulation: nothing of cuBLAS loads.
				assertThat(template.blas().sdot(new float[] { 1, 2 }, new float[] { 3, 4 })).isEqualTo(11);
			});
	}

	@Test
	void templateWhenBatchingPropertiesSetShouldGiveItsBatchersThatPolicy() {
		this.contextRunner.withUserConfiguration(RegistryConfiguration.class)
			.withPropertyValues("offload.batching.max-batch-size=256", "offload.batching.max-delay=1ms",
					"offload.batching.preferred-batch-sizes=64,128", "offload.batching.max-queue=4096")
			.run((context) -> assertThat(context.getBean(OffloadTemplate.class).batchPolicy())
				.isEqualTo(new BatchPolicy(256, List.of(64, 128), Duration.ofMillis(1), 4096)));
	}

	@Test
	void templateWhenBatchQueueSmallerThanABatchShouldFailNamingTheProperty() {
		this.contextRunner.withUserConfiguration(RegistryConfiguration.class)
			.withPropertyValues("offload.batching.max-queue=16")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(InvalidOffloadConfigurationException.class.getName()
						+ ": Invalid value '16' for 'offload.batching.max-queue': maxQueue must be at least maxBatchSize "
						+ "(1024), was 16"));
	}

	@Test
	void templateWhenNoRegistryShouldBackOff() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(OffloadTemplate.class);
			assertThat(context).doesNotHaveBean(OffloadAnnotationBeanPostProcessor.class);
		});
	}

	@Test
	void templateWhenUserDefinesOneShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserTemplateConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(OffloadTemplate.class);
			assertThat(context.getBean(OffloadTemplate.class))
				.isSameAs(context.getBean(UserTemplateConfiguration.class).template);
		});
	}

	@Test
	void postProcessorWhenUserDefinesOneShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserPostProcessorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(OffloadAnnotationBeanPostProcessor.class);
			assertThat(context).hasBean("customOffloadPostProcessor");
		});
	}

	@Test
	void postProcessorWhenDisabledShouldBackOffAndLeaveBeansUnproxied() {
		this.contextRunner.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.withPropertyValues("offload.aop.enabled=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(OffloadTemplate.class);
				assertThat(context).doesNotHaveBean(OffloadAnnotationBeanPostProcessor.class);
				assertThat(AopUtils.isAopProxy(context.getBean(Annotated.class))).isFalse();
			});
	}

	@Test
	void postProcessorWhenEnabledShouldProxyAnnotatedBeansWithClassesOnly() {
		this.contextRunner.withUserConfiguration(AnnotatedBeanConfiguration.class).run((context) -> {
			assertThat(AopUtils.isCglibProxy(context.getBean(Annotated.class))).isTrue();
			assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse();
		});
	}

	@Test
	void postProcessorWhenProxyTargetClassIsFalseShouldUseInterfaceProxies() {
		this.contextRunner.withUserConfiguration(AnnotatedBeanConfiguration.class)
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.run((context) -> assertThat(AopUtils.isJdkDynamicProxy(context.getBean(Work.class))).isTrue());
	}

	@Test
	void templateWhenOffloadAutoConfigurationProvidesTheRegistryShouldAdviseBeans() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(OffloadTemplateAutoConfiguration.class, OffloadAutoConfiguration.class))
			.withPropertyValues("offload.backend=host", "offload.host.device-count=2")
			.withUserConfiguration(SessionReporterConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(OffloadTemplate.class);
				DeviceRegistry registry = context.getBean(DeviceRegistry.class);
				assertThat(context.getBean(OffloadTemplate.class).registry()).isSameAs(registry);
				OffloadSession session = context.getBean(SessionReporter.class).session().orElseThrow();
				assertThat(registry.devices()).contains(session.device());
				assertThat(session.isClosed()).isTrue();
				assertThat(OffloadSessionBinding.currentSession()).isEmpty();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		DeviceRegistry deviceRegistry() {
			return DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build()).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(RegistryConfiguration.class)
	static class UserTemplateConfiguration {

		OffloadTemplate template;

		@Bean
		OffloadTemplate myTemplate(DeviceRegistry registry) {
			this.template = new OffloadTemplate(registry);
			return this.template;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(RegistryConfiguration.class)
	static class UserPostProcessorConfiguration {

		@Bean
		static OffloadAnnotationBeanPostProcessor customOffloadPostProcessor() {
			return new OffloadAnnotationBeanPostProcessor(() -> {
				throw new IllegalStateException("not used");
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(RegistryConfiguration.class)
	static class AnnotatedBeanConfiguration {

		@Bean
		Annotated annotated() {
			return new Annotated();
		}

		@Bean
		Plain plain() {
			return new Plain();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SessionReporterConfiguration {

		@Bean
		SessionReporter sessionReporter() {
			return new SessionReporter();
		}

	}

	static class SessionReporter {

		@Offload
		public Optional<OffloadSession> session() {
			return OffloadSessionBinding.currentSession();
		}

	}

	interface Work {

		void work();

	}

	static class Annotated implements Work {

		@Offload
		@Override
		public void work() {
		}

	}

	static class Plain {

		public void work() {
		}

	}

}
