package dev.offload;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;

/**
 * A {@link ModuleDefinition} loaded on one {@link Device}: its kernels by name.
 */
public final class KernelModule {

	private final Device device;

	private final String name;

	private final BackendModule backendModule;

	private final Map<String, Kernel> kernels;

	KernelModule(Device device, ModuleDefinition definition, BackendModule backendModule) {
		this.device = device;
		this.name = definition.name();
		this.backendModule = backendModule;
		Map<String, Kernel> byName = new LinkedHashMap<>();
		for (BackendKernel kernel : backendModule.kernels().values()) {
			List<ParamKind> declared = definition.declaredParameters(kernel.name());
			List<ParamKind> parameters = (declared != null) ? declared : kernel.parameters();
			if (declared != null && declared.size() != kernel.parameters().size()) {
				throw new IllegalArgumentException("Kernel '" + kernel.name() + "' of module '" + this.name
						+ "' is declared with " + declared.size() + " parameters " + declared + " but its code has "
						+ kernel.parameters().size() + " " + kernel.parameters());
			}
			byName.put(kernel.name(), new Kernel(this, kernel, parameters));
		}
		this.kernels = byName;
	}

	/**
	 * Returns the module's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the device the module is loaded on.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Returns a kernel by name.
	 * @param name the kernel's name
	 * @return the kernel
	 * @throws NoSuchKernelException naming the kernels that exist
	 */
	public Kernel kernel(String name) {
		Kernel kernel = this.kernels.get(name);
		if (kernel == null) {
			throw new NoSuchKernelException(this.name, name, this.kernels.keySet());
		}
		return kernel;
	}

	/**
	 * Returns the names of the module's kernels.
	 * @return the names
	 */
	public Set<String> kernelNames() {
		return this.kernels.keySet();
	}

	void unload() {
		this.backendModule.unload();
	}

}
