package dev.offload.internal.health;

import java.nio.file.Path;

/**
 * NVML through JNA (the JCuda backend's binding) against the fake library.
 */
class JnaNvmlTests extends NvmlBindingContract {

	@Override
	protected Nvml load(Path library) {
		return JnaNvml.load(library.toString());
	}

}
