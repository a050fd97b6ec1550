package dev.offload.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendSelection;

/**
 * The factory methods of the beans that {@link StreamPoolBeanDefinitions} registers,
 * named in their definitions (rather than given as lambdas) so that Spring AOT can
 * generate code for them.
 */
final class OffloadBeanMethods {

	/**
	 * The name of this bean, the factory bean of the {@code streamPoolN} beans.
	 */
	static final String BEAN_NAME = "offloadBeanMethods";

	private final ObjectProvider<DeviceRegistry> registry;

	OffloadBeanMethods(ObjectProvider<DeviceRegistry> registry) {
		this.registry = registry;
	}

	/**
	 * Selects the backend; the factory method of the {@link BackendSelection} bean. The
	 * selection is made while the beans are registered, before the {@link KernelCache}
	 * bean exists: its CUDA backend takes that bean (configured by
	 * {@code offload.kernels.*}, and measured) when the backend is created.
	 * @param properties the configuration
	 * @param resourceLoader gives the application's class loader, where JCuda must be
	 * @param environment where the configuration was bound from
	 * @param kernelCache the {@link KernelCache} bean, looked up when the backend is
	 * created
	 * @return the selection
	 */
	static BackendSelection backendSelection(OffloadProperties properties, ResourceLoader resourceLoader,
			Environment environment, ObjectProvider<KernelCache> kernelCache) {
		return backendFactory(properties, resourceLoader, environment, kernelCache).select();
	}

	/**
	 * Returns the factory that selects and creates the backend, whose CUDA backend
	 * compiles through the {@link KernelCache} bean.
	 * @param properties the configuration
	 * @param resourceLoader gives the application's class loader, where JCuda must be
	 * @param environment where the configuration was bound from
	 * @param kernelCache the {@link KernelCache} bean, looked up when the backend is
	 * created
	 * @return the factory
	 */
	static BackendFactory backendFactory(OffloadProperties properties, ResourceLoader resourceLoader,
			Environment environment, ObjectProvider<KernelCache> kernelCache) {
		return BackendFactory.of(properties, resourceLoader.getClassLoader(), environment, kernelCache::getObject);
	}

	/**
	 * Returns a device's pool; the factory method of the {@code streamPoolN} beans.
	 * @param deviceId the device's id
	 * @return the pool that the registry holds for that device
	 */
	StreamPool streamPool(int deviceId) {
		return this.registry.getObject().device(deviceId).streamPool();
	}

}
