package dev.offload.autoconfigure;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.ModuleDefinition;

/**
 * Loads every {@link ModuleDefinition} bean on every device once the singletons exist,
 * before the application is ready: a module from CUDA source compiles then (or comes from
 * the kernel cache), so a kernel that does not compile, or a missing NVRTC, stops startup
 * with its failure analysis instead of failing the first request. On the host backend
 * only modules with host kernels are loaded; a module without code for the backend waits
 * for its first use, which names what is missing.
 */
final class KernelModulePreloader implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(KernelModulePreloader.class);

	private final ObjectProvider<DeviceRegistry> registry;

	private final ObjectProvider<ModuleDefinition> modules;

	KernelModulePreloader(ObjectProvider<DeviceRegistry> registry, ObjectProvider<ModuleDefinition> modules) {
		this.registry = registry;
		this.modules = modules;
	}

	@Override
	public void afterSingletonsInstantiated() {
		DeviceRegistry devices = this.registry.getIfUnique();
		List<ModuleDefinition> definitions = this.modules.orderedStream().toList();
		if (devices == null || definitions.isEmpty()) {
			return;
		}
		long start = System.nanoTime();
		int loaded = 0;
		for (Device device : devices.devices()) {
			for (ModuleDefinition definition : definitions) {
				if (hasCodeFor(device, definition)) {
					device.loadModule(definition);
					loaded++;
				}
			}
		}
		logger.info("Loaded {} kernel module(s) on {} device(s) in {} ms", loaded, devices.devices().size(),
				(System.nanoTime() - start) / 1_000_000);
	}

	static boolean hasCodeFor(Device device, ModuleDefinition definition) {
		if (HostBackend.NAME.equals(device.backendName())) {
			return !definition.hostKernels().isEmpty();
		}
		return definition.hasCudaSource() || definition.hasImage();
	}

}
