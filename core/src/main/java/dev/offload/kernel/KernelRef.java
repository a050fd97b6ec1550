package dev.offload.kernel;

/**
 * A kernel named independently of any device: its module's definition and its name. A
 * session launches it directly ({@code session.launch(ref, config, args)}); the module is
 * loaded on the session's device the first time (a device keeps loaded modules by name),
 * so code can launch on whichever device its session got.
 *
 * @param module the module that holds the kernel
 * @param name the kernel's name
 */
public record KernelRef(ModuleDefinition module, String name) {

	/**
	 * Checks the values.
	 * @param module the module that holds the kernel
	 * @param name the kernel's name
	 * @throws IllegalArgumentException if a value is missing
	 */
	public KernelRef {
		if (module == null) {
			throw new IllegalArgumentException("module must not be null");
		}
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A kernel reference needs the kernel's name");
		}
	}

	/**
	 * Names a kernel of a module.
	 * @param module the module
	 * @param name the kernel's name
	 * @return the reference
	 */
	public static KernelRef of(ModuleDefinition module, String name) {
		return new KernelRef(module, name);
	}

}
