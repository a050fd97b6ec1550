package dev.offload.autoconfigure.template;

import java.util.List;
import java.util.Locale;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.InvalidOffloadConfigurationException;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.autoconfigure.OffloadProperties;
import dev.offload.spring.aop.BatchedAnnotationBeanPostProcessor;
import dev.offload.spring.aop.OffloadAnnotationBeanPostProcessor;
import dev.offload.template.BatchListener;
import dev.offload.template.BatchPolicy;
import dev.offload.template.OffloadTemplate;
import dev.offload.template.TenantResolver;
import dev.offload.blas.BlasLibrary;

/**
 * Auto-configuration of {@link OffloadTemplate} (its batchers following
 * {@code offload.batching.*}) and of the {@link dev.offload.template.Offload @Offload}
 * and {@link dev.offload.template.Batched @Batched} advice, over the application's
 * {@link DeviceRegistry}; both ask the application's {@link TenantResolver}, if any, for
 * the tenant of a session that names none.
 */
@AutoConfiguration(after = OffloadAutoConfiguration.class)
@ConditionalOnBean(DeviceRegistry.class)
@EnableConfigurationProperties(OffloadProperties.class)
public final class OffloadTemplateAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	OffloadTemplate offloadTemplate(DeviceRegistry registry, OffloadProperties properties, Environment environment,
			ObjectProvider<BatchListener> batchListeners, ObjectProvider<BlasLibrary> blasLibrary,
			ObjectProvider<TenantResolver> tenantResolver) {
		List<BatchListener> listeners = batchListeners.orderedStream().toList();
		BatchListener listener = (listeners.size() == 1) ? listeners.get(0) : new CompositeBatchListener(listeners);
		OffloadTemplate template = new OffloadTemplate(registry, batchPolicy(properties.getBatching(), environment),
				listener, tenantResolver.getIfAvailable(() -> TenantResolver.NONE));
		blasLibrary.ifAvailable(template::setBlasLibrary);
		return template;
	}

	/**
	 * The BLAS library of {@code offload.blas.*}, which the template's {@code blas()}
	 * uses; nothing loads until a session calls it.
	 * @param properties the properties
	 * @return the library
	 */
	@Bean
	@ConditionalOnMissingBean
	BlasLibrary offloadBlasLibrary(OffloadProperties properties, Environment environment) {
		OffloadProperties.Blas blas = properties.getBlas();
		BlasLibrary.Builder builder = BlasLibrary.builder().libraryPath(blas.getLibrary()).mathMode(blas.getMathMode());
		DataSize workspace = blas.getWorkspaceSize();
		if (workspace == null) {
			return builder.recommendedWorkspace().build();
		}
		try {
			return builder.workspaceBytes(workspace.toBytes()).build();
		}
		catch (IllegalArgumentException ex) {
			throw InvalidOffloadConfigurationException.of(environment, "offload.blas.workspace-size", workspace,
					ex.getMessage(), "Set 'offload.blas.workspace-size' to 0 or more (0: cuBLAS allocates none), or "
							+ "leave it unset for the size cuBLAS recommends for the device.",
					ex);
		}
	}

	private static BatchPolicy batchPolicy(OffloadProperties.Batching batching, Environment environment) {
		try {
			return new BatchPolicy(batching.getMaxBatchSize(), batching.getPreferredBatchSizes(),
					batching.getMaxDelay(), batching.getMaxQueue());
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			String field = message.substring(0, Math.max(0, message.indexOf(' ')));
			String property = "offload.batching." + field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
			Object value = switch (field) {
				case "maxBatchSize" -> batching.getMaxBatchSize();
				case "preferredBatchSizes" -> batching.getPreferredBatchSizes();
				case "maxDelay" -> batching.getMaxDelay();
				default -> batching.getMaxQueue();
			};
			throw InvalidOffloadConfigurationException.of(environment, property, value, ex.getMessage(),
					"Set " + property + " within its bounds", ex);
		}
	}

	/**
	 * The {@code @Offload} advice, on unless {@code offload.aop.enabled=false}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(
			name = "org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor")
	@ConditionalOnBooleanProperty(name = "offload.aop.enabled", matchIfMissing = true)
	static class OffloadAnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static BatchedAnnotationBeanPostProcessor batchedAnnotationBeanPostProcessor(Environment environment,
				ObjectProvider<OffloadTemplate> template) {
			// The policy of offload.batching.*, bound on its own: a post-processor comes
			// before the properties bean, and @Batched attributes are checked against it.
			BatchedAnnotationBeanPostProcessor postProcessor = new BatchedAnnotationBeanPostProcessor(
					template::getObject,
					() -> batchPolicy(
							Binder.get(environment).bindOrCreate("offload.batching", OffloadProperties.Batching.class),
							environment));
			postProcessor.setProxyTargetClass(
					environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
			return postProcessor;
		}

		// Static, and the registry looked up lazily: a post-processor is created before
		// the beans it processes.
		@Bean
		@ConditionalOnMissingBean
		static OffloadAnnotationBeanPostProcessor offloadAnnotationBeanPostProcessor(Environment environment,
				ObjectProvider<DeviceRegistry> registry, ObjectProvider<TenantResolver> tenantResolver) {
			OffloadAnnotationBeanPostProcessor postProcessor = new OffloadAnnotationBeanPostProcessor(
					registry::getObject, () -> tenantResolver.getIfAvailable(() -> TenantResolver.NONE));
			postProcessor.setProxyTargetClass(
					environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
			return postProcessor;
		}

	}

}
