package dev.offload.benchmarks;

import java.util.List;

import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * The module of the {@code spin(long nanos)} kernel, which keeps one device thread busy
 * for a given time: on CUDA the PTX in {@code kernels/spin.ptx} (built from
 * {@code src/main/cuda/spin.cu}) polls {@code %globaltimer}; on the host backend a Java
 * loop polls {@link System#nanoTime()}.
 */
final class SpinKernel {

	static final String MODULE = "offload-benchmarks-spin";

	static final String NAME = "spin";

	static final String PTX = "kernels/spin.ptx";

	/** The kernel, for the template and sessions that launch it by reference. */
	static final KernelRef KERNEL = KernelRef.of(definition(), NAME);

	private SpinKernel() {
	}

	static ModuleDefinition definition() {
		return ModuleDefinition.builder(MODULE)
			.imageResource(PTX, SpinKernel.class.getClassLoader())
			.hostKernel(NAME, List.of(ParamKind.INT64), SpinKernel::spin)
			.build();
	}

	private static void spin(HostThread thread) {
		long nanos = thread.longArg(0);
		long start = System.nanoTime();
		while (System.nanoTime() - start < nanos) {
			Thread.onSpinWait();
		}
	}

}
