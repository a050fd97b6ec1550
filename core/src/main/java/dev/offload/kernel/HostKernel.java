package dev.offload.kernel;

/**
 * A kernel's Java implementation for the host backend ({@code dev.offload.backend.host}),
 * called once per emulated thread of the grid, like a CUDA kernel's body. Registered in a
 * {@link dev.offload.kernel.ModuleDefinition}.
 * <p>
 * A kernel that throws fails its stream's work; an {@link IndexOutOfBoundsException} (a
 * write outside a buffer) is treated like CUDA's illegal address: a sticky error that
 * fails the whole device.
 */
@FunctionalInterface
public interface HostKernel {

	/**
	 * Runs the kernel for one thread.
	 * @param thread the thread's indices and the launch's arguments
	 */
	void run(HostThread thread);

}
