package dev.offload.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadListener;
import dev.offload.StreamPool;
import dev.offload.spi.Backend;

/**
 * {@link AutoConfiguration Auto-configuration} of Offload: the {@link Backend} ({@code offload.backend}), the
 * {@link DeviceRegistry} (which opens sessions), one {@link StreamPool} bean per device ({@code streamPool0},
 * {@code streamPool1}, ...) and the {@link OffloadLifecycle} that shuts them down in order. Every bean backs off when
 * the application defines its own. The futures of asynchronous work complete on the executor bean that
 * {@code offload.async.executor} names, else on {@link DeviceRegistry#defaultCompletionExecutor()}.
 * <p>
 * Declare {@link OffloadListener} beans to observe the pools and sessions: the registry calls them all, in order.
 * They are created before the registry, so they must not depend on it (inject an {@code ObjectProvider} if needed).
 */
@AutoConfiguration
@EnableConfigurationProperties(OffloadProperties.class)
@Import({ OffloadBackendConfigurations.CudaOnClasspath.class, OffloadBackendConfigurations.CudaNotOnClasspath.class,
		StreamPoolBeanDefinitions.class })
public final class OffloadAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DeviceRegistry deviceRegistry(Backend backend, OffloadProperties properties,
			ObjectProvider<OffloadListener> listeners, BeanFactory beanFactory) {
		OffloadListener listener = CompositeOffloadListener.of(listeners.orderedStream().toList());
		return new DeviceRegistryFactory(properties).create(backend, listener, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadLifecycle offloadLifecycle(ObjectProvider<DeviceRegistry> registries, OffloadProperties properties) {
		return new OffloadLifecycle(registries.orderedStream().toList(), properties.getShutdown().getAwaitTermination());
	}

	@Bean
	static StreamPoolSingletons offloadStreamPoolSingletons() {
		return new StreamPoolSingletons();
	}

}
