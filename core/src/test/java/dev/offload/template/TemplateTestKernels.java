package dev.offload.template;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.TestKernels;
import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * Host kernels for the template tests: {@code scale}, {@code fail}, {@code mix}, and
 * core's {@code hold}, which keeps its stream busy until its gate opens (a latch, never a
 * timer).
 */
final class TemplateTestKernels {

	// Above the ids that core's other tests give the same gates by hand.
	private static final AtomicInteger gateIds = new AtomicInteger(1_000_000);

	static final ModuleDefinition MODULE = ModuleDefinition.builder("template-test")
		.hostKernel("scale", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				t.floats(3).put(i, t.floatArg(1) * t.floats(2).get(i));
			}
		})
		.hostKernel("fail", List.of(ParamKind.INT32), (t) -> {
			throw new IllegalStateException("kernel failed on purpose " + t.intArg(0));
		})
		.hostKernel("mix",
				List.of(ParamKind.INT32, ParamKind.POINTER, ParamKind.POINTER, ParamKind.POINTER, ParamKind.POINTER,
						ParamKind.POINTER, ParamKind.POINTER, ParamKind.POINTER, ParamKind.POINTER),
				TemplateTestKernels::mix)
		.build();

	static final KernelRef SCALE = KernelRef.of(MODULE, "scale");

	static final KernelRef FAIL = KernelRef.of(MODULE, "fail");

	static final KernelRef HOLD = KernelRef.of(TestKernels.MODULE, "hold");

	/**
	 * {@code mix(int n, const double* d, const int* i, const long* l, const byte* b, double* d2, long* sum,
	 * byte* b1, int* i3)}: one input and one output of each type other than float.
	 */
	static final KernelRef MIX = KernelRef.of(MODULE, "mix");

	private TemplateTestKernels() {
	}

	private static void mix(HostThread t) {
		int i = t.globalIdX();
		if (i < t.intArg(0)) {
			t.doubles(5).put(i, 2 * t.doubles(1).get(i));
			t.longs(6).put(i, t.ints(2).get(i) + t.longs(3).get(i));
			t.bytes(7).put(i, (byte) (t.bytes(4).get(i) + 1));
			t.ints(8).put(i, 3 * t.ints(2).get(i));
		}
	}

	/**
	 * Calls {@code scale} on {@code x} with {@code factor}, one thread per element,
	 * asynchronously.
	 */
	static CompletableFuture<KernelResult> scaleAsync(OffloadTemplate template, float[] x, float factor) {
		return template.kernel(SCALE).threads(x.length).arg(x.length).arg(factor).in(x).outFloats(x.length).runAsync();
	}

	/**
	 * Returns a new gate's id; {@code hold} kernels launched with it wait until
	 * {@link #open(int)}.
	 */
	static int newGate() {
		int id = gateIds.incrementAndGet();
		TestKernels.gate(id);
		return id;
	}

	static void open(int id) {
		TestKernels.gate(id).countDown();
	}

}
