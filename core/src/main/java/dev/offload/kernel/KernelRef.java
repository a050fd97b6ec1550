package dev.offload.template;

import java.util.Objects;

import dev.offload.Device;
import dev.offload.Kernel;
import dev.offload.ModuleDefinition;
import dev.offload.OffloadSession;

/**
 * A kernel named independently of any device: its module's definition and its name. {@link #on(Device)} loads the
 * module on a device the first time (a device keeps loaded modules by name) and returns the kernel there, so code
 * can launch on whichever device its session got.
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

	/**
	 * Returns the kernel on a device, loading its module there if needed.
	 * @param device the device
	 * @return the kernel
	 * @throws dev.offload.NoSuchKernelException if the module has no such kernel
	 */
	public Kernel on(Device device) {
		Objects.requireNonNull(device, "device must not be null");
		return device.loadModule(this.module).kernel(this.name);
	}

	/**
	 * Returns the kernel on a session's device.
	 * @param session the session
	 * @return the kernel
	 */
	public Kernel on(OffloadSession session) {
		return on(session.device());
	}

}
