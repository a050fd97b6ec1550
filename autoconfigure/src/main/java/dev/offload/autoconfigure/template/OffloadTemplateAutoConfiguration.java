package dev.offload.autoconfigure.template;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.spring.aop.OffloadAnnotationBeanPostProcessor;
import dev.offload.template.OffloadTemplate;

/**
 * Auto-configuration of {@link OffloadTemplate} and of the
 * {@link dev.offload.template.Offload @Offload} advice, over the application's
 * {@link DeviceRegistry}.
 */
@AutoConfiguration(after = OffloadAutoConfiguration.class)
@ConditionalOnBean(DeviceRegistry.class)
public final class OffloadTemplateAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	OffloadTemplate offloadTemplate(DeviceRegistry registry) {
		return new OffloadTemplate(registry);
	}

	/**
	 * The {@code @Offload} advice, on unless {@code offload.aop.enabled=false}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(
			name = "org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor")
	@ConditionalOnBooleanProperty(name = "offload.aop.enabled", matchIfMissing = true)
	static class OffloadAnnotationConfiguration {

		// Static, and the registry looked up lazily: a post-processor is created before
		// the beans it processes.
		@Bean
		@ConditionalOnMissingBean
		static OffloadAnnotationBeanPostProcessor offloadAnnotationBeanPostProcessor(Environment environment,
				ObjectProvider<DeviceRegistry> registry) {
			OffloadAnnotationBeanPostProcessor postProcessor = new OffloadAnnotationBeanPostProcessor(
					registry::getObject);
			postProcessor.setProxyTargetClass(
					environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
			return postProcessor;
		}

	}

}
