package dev.offload;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * Host kernels for core's tests: arithmetic, failures, and a "long" kernel held open by a
 * latch instead of a timer ({@code hold}, the one gate kernel of core's tests;
 * applications use offload-test's {@code Gate}, which core's own tests cannot depend on).
 */
public final class TestKernels {

	/** Latches the {@code hold} kernel waits on, by id. */
	static final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();

	/** Latches the {@code hold} kernel counts down when it starts, by id. */
	static final Map<Integer, CountDownLatch> started = new ConcurrentHashMap<>();

	public static final ModuleDefinition MODULE = ModuleDefinition.builder("test")
		.hostKernel("saxpy", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				t.floats(3).put(i, t.floatArg(1) * t.floats(2).get(i) + t.floats(3).get(i));
			}
		})
		.hostKernel("noop", List.of(), (t) -> {
		})
		.hostKernel("fail", List.of(ParamKind.INT32), (t) -> {
			throw new IllegalStateException("kernel failed on purpose " + t.intArg(0));
		})
		.hostKernel("outOfBounds", List.of(ParamKind.POINTER), (t) -> t.floats(0).put(Integer.MAX_VALUE / 8, 1f))
		.hostKernel("hold", List.of(ParamKind.INT32), (t) -> {
			int id = t.intArg(0);
			started.computeIfAbsent(id, (key) -> new CountDownLatch(1)).countDown();
			await(gates.computeIfAbsent(id, (key) -> new CountDownLatch(1)));
		})
		.build();

	private TestKernels() {
	}

	/**
	 * Returns the latch that {@code hold} kernels launched with {@code id} wait on.
	 * @param id the gate's id
	 * @return its latch
	 */
	public static CountDownLatch gate(int id) {
		return gates.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	static CountDownLatch started(int id) {
		return started.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	static void await(CountDownLatch latch) {
		try {
			if (!latch.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("latch not released within 60s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
