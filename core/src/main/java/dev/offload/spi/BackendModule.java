package dev.offload.spi;

import java.util.Map;

/**
 * A module loaded on one device: a set of kernels by name.
 */
public interface BackendModule {

	/**
	 * Returns the module's kernels by name.
	 * @return the kernels, in declaration order
	 */
	Map<String, BackendKernel> kernels();

	/**
	 * Unloads the module.
	 */
	void unload();

}
