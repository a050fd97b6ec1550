package dev.offload.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

import dev.offload.DeviceRegistry;
import dev.offload.compile.KernelCache;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.OffloadListener;
import dev.offload.StreamPool;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendSelection;

/**
 * {@link AutoConfiguration Auto-configuration} of Offload: the {@link Backend}
 * ({@code offload.backend}), the {@link DeviceRegistry} (which opens sessions), one
 * {@link StreamPool} bean per device ({@code streamPool0}, {@code streamPool1}, ...) and
 * the {@link OffloadLifecycle} that shuts them down in order. Every bean backs off when
 * the application defines its own. The futures of asynchronous work complete on the
 * executor bean that {@code offload.async.executor} names, else on
 * {@link DeviceRegistry#defaultCompletionExecutor()}.
 * <p>
 * Declare {@link OffloadListener} beans to observe the pools and sessions: the registry
 * calls them all, in order. They are created before the registry, so they must not depend
 * on it (inject an {@code ObjectProvider} if needed).
 */
@AutoConfiguration
@EnableConfigurationProperties(OffloadProperties.class)
@Import(StreamPoolBeanDefinitions.class)
public final class OffloadAutoConfiguration {

	// The registry owns the backend and closes it, so the bean has no destroy method.
	@Bean(destroyMethod = "")
	@ConditionalOnMissingBean({ Backend.class, DeviceRegistry.class })
	Backend offloadBackend(BackendSelection selection, OffloadProperties properties, ResourceLoader resourceLoader,
			Environment environment, ObjectProvider<KernelCache> kernelCache) {
		// The selection's provider compiles through the KernelCache bean: the one that
		// offload.kernels.* configures and the kernel meters read.
		return OffloadBeanMethods.backendFactory(properties, resourceLoader, environment, kernelCache)
			.create(selection);
	}

	@Bean
	@ConditionalOnMissingBean
	KernelCache offloadKernelCache(OffloadProperties properties) {
		return KernelCache.create(properties.getKernels().getCacheDir(), properties.getKernels().getNvrtcLibrary());
	}

	// Loads (compiles, on CUDA) every ModuleDefinition bean before the application is
	// ready, so that a kernel that does not compile stops startup.
	@Bean
	@ConditionalOnMissingBean
	KernelModulePreloader offloadKernelModulePreloader(ObjectProvider<DeviceRegistry> registry,
			ObjectProvider<ModuleDefinition> modules) {
		return new KernelModulePreloader(registry, modules);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DeviceRegistry deviceRegistry(Backend backend, OffloadProperties properties,
			ObjectProvider<OffloadListener> listeners, Environment environment, BeanFactory beanFactory) {
		OffloadListener listener = OffloadListener.composite(listeners.orderedStream().toList());
		return new DeviceRegistryFactory(properties, environment).create(backend, listener, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadLifecycle offloadLifecycle(ObjectProvider<DeviceRegistry> registries, OffloadProperties properties) {
		return new OffloadLifecycle(registries.orderedStream().toList(),
				properties.getShutdown().getAwaitTermination());
	}

	@Bean
	static StreamPoolSingletons offloadStreamPoolSingletons() {
		return new StreamPoolSingletons();
	}

}
