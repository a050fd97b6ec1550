package dev.offload.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.aot.AbstractAotProcessor;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.spi.BackendSelection;
import dev.offload.spring.pool.DevicePool;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the bean definitions that {@link StreamPoolBeanDefinitions} makes, as Spring
 * AOT sees them: factory methods rather than lambdas, and no device count taken from the
 * machine that processes the application.
 */
class StreamPoolBeanDefinitionsAotTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
		.withPropertyValues("offload.backend=host");

	@Test
	void definitionsWhenAotProcessingShouldNameFactoryMethodsAndNoInstanceSupplier() {
		this.contextRunner
			.withPropertyValues(AbstractAotProcessor.AOT_PROCESSING + "=true", "offload.devices=0,1",
					"offload.host.device-count=2")
			.run((context) -> {
				RootBeanDefinition selection = definition(context, StreamPoolBeanDefinitions.SELECTION_BEAN_NAME);
				assertThat(selection.getInstanceSupplier()).isNull();
				assertThat(selection.getFactoryMethodName()).isEqualTo("backendSelection");
				assertThat(selection.getResolvedAutowireMode()).isEqualTo(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
				RootBeanDefinition pool = definition(context, "streamPool1");
				assertThat(pool.getInstanceSupplier()).isNull();
				assertThat(pool.getFactoryBeanName()).isEqualTo(OffloadBeanMethods.BEAN_NAME);
				assertThat(pool.getFactoryMethodName()).isEqualTo("streamPool");
				assertThat(pool.getConstructorArgumentValues().getIndexedArgumentValue(0, Integer.class).getValue())
					.isEqualTo(1);
				assertThat(pool.getQualifier(DevicePool.class.getName()))
					.extracting((qualifier) -> qualifier.getAttribute(AutowireCandidateQualifier.VALUE_KEY))
					.isEqualTo(1);
				// The definitions alone make the beans: the registry's pool of each
				// listed device, the selection.
				assertThat(context.getBean("streamPool1", StreamPool.class))
					.isSameAs(context.getBean(DeviceRegistry.class).device(1).streamPool());
				assertThat(context.getBean(BackendSelection.class).provider().name()).isEqualTo("host");
			});
	}

	@Test
	void poolsWhenAotProcessingWithoutListedIdsShouldBeRegisteredOnceTheRegistryExists() {
		// The host device count is configuration of the run, not of the build: AOT must
		// not freeze it.
		this.contextRunner
			.withPropertyValues(AbstractAotProcessor.AOT_PROCESSING + "=true", "offload.host.device-count=3")
			.run((context) -> {
				assertThat(context.getBeanFactory().containsBeanDefinition("streamPool0")).isFalse();
				assertThat(context.getBeansOfType(StreamPool.class)).containsOnlyKeys("streamPool0", "streamPool1",
						"streamPool2");
			});
	}

	@Test
	void poolsWhenNotAotProcessingShouldBeDefinedBeforeTheRegistryExists() {
		this.contextRunner.withPropertyValues("offload.host.device-count=2").run((context) -> {
			assertThat(definition(context, "streamPool1").getFactoryMethodName()).isEqualTo("streamPool");
			assertThat(context.getBean("streamPool1", StreamPool.class))
				.isSameAs(context.getBean(DeviceRegistry.class).device(1).streamPool());
		});
	}

	private static RootBeanDefinition definition(ConfigurableApplicationContext context, String name) {
		BeanDefinition definition = context.getBeanFactory().getMergedBeanDefinition(name);
		assertThat(definition).isInstanceOf(RootBeanDefinition.class);
		return (RootBeanDefinition) definition;
	}

}
