package com.example.scaling;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.template.OffloadTemplate;

/**
 * The README's {@code Scaler}: its kernel and its kernel call, for tests of what the
 * README shows.
 */
public class ReadmeScaler {

	static final KernelRef SCALE = KernelRef.of(ModuleDefinition.builder("scale").cudaSource("scale.cu", """
			extern "C" __global__ void scale(int n, float a, const float* in, float* out) {
			    int i = blockIdx.x * blockDim.x + threadIdx.x;
			    if (i < n) {
			        out[i] = a * in[i];
			    }
			}
			""").hostKernel("scale", (t) -> {
		int i = t.globalIdX();
		if (i < t.intArg(0)) {
			t.floats(3).put(i, t.floatArg(1) * t.floats(2).get(i));
		}
	}).build(), "scale");

	private final OffloadTemplate offload;

	/**
	 * Creates the scaler.
	 * @param offload the template that runs the kernel
	 */
	public ReadmeScaler(OffloadTemplate offload) {
		this.offload = offload;
	}

	/**
	 * The README's kernel call.
	 * @param x the values
	 * @param factor the factor
	 * @return the scaled values
	 */
	public float[] scale(float[] x, float factor) {
		return this.offload.kernel(SCALE)
			.threads(x.length)
			.arg(x.length)
			.arg(factor)
			.in(x)
			.outFloats(x.length)
			.run()
			.floats(0);
	}

}
