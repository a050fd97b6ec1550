package dev.offload.compile;

import dev.offload.kernel.CudaSource;

/**
 * Compiles CUDA C source for one architecture: NVRTC in production (through JNA, or
 * through the binding a backend brings: {@link KernelCache#useCompiler}), a counting fake
 * in the cache's tests.
 */
public interface KernelCompiler {

	/**
	 * Names the compiler and its version, which is part of every cache key.
	 * @return e.g. {@code "nvrtc 13.0"}
	 */
	String version();

	/**
	 * Compiles a module's source.
	 * @param module the module's name, for messages
	 * @param source the source, its includes and options
	 * @param architecture the device's compute capability as {@code 10 * major + minor}
	 * @return a cubin for that architecture, or PTX when the compiler does not know it
	 * @throws KernelCompilationException if the source does not compile
	 */
	CompiledImage compile(String module, CudaSource source, int architecture);

	/**
	 * A compiled image.
	 *
	 * @param image the cubin or PTX bytes
	 * @param target the architecture it was compiled for: {@code sm_90} (a cubin) or
	 * {@code compute_90} (PTX, which the driver compiles when it loads it)
	 */
	record CompiledImage(byte[] image, String target) {

		/**
		 * Creates an image.
		 * @param image the cubin or PTX bytes
		 * @param target {@code sm_XY} for a cubin, {@code compute_XY} for PTX
		 */
		public CompiledImage {
			java.util.Objects.requireNonNull(image, "image must not be null");
			java.util.Objects.requireNonNull(target, "target must not be null");
		}

		boolean isPtx() {
			return this.target.startsWith("compute_");
		}

		String extension() {
			return isPtx() ? "ptx" : "cubin";
		}

	}

}
