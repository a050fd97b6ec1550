package dev.offload.benchmarks.support;

import java.util.List;

import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * The {@code scale(int n, float a, const float* in, float* out)} kernel,
 * {@code out[i] = a * in[i]}, that the fluent call benchmarks run: on CUDA the PTX in
 * {@value #PTX} (loaded by Offload, or by hand-written driver calls), on the host backend
 * a Java body.
 */
public final class ScaleKernel {

	/** The kernel's PTX, a class path resource. */
	public static final String PTX = "dev/offload/benchmarks/cuda/scale.ptx";

	/** The kernel's name in its module. */
	public static final String NAME = "scale";

	/** The threads of a block of every launch of it. */
	public static final int BLOCK = 256;

	/** The kernel, for the template and sessions that launch it by reference. */
	public static final KernelRef KERNEL = KernelRef.of(ModuleDefinition.builder(NAME)
		.imageResource(PTX)
		.hostKernel(NAME, List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER),
				ScaleKernel::scale)
		.build(), NAME);

	private ScaleKernel() {
	}

	private static void scale(HostThread thread) {
		int i = thread.globalIdX();
		if (i < thread.intArg(0)) {
			thread.floats(3).put(i, thread.floatArg(1) * thread.floats(2).get(i));
		}
	}

}
