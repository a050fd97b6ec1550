package dev.offload.spring.aop;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * Host kernels for the advice tests: {@code hold} keeps its stream busy until its gate opens (a latch, no timer).
 */
final class AopTestKernels {

	private static final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();

	private static final AtomicInteger gateIds = new AtomicInteger();

	static final ModuleDefinition MODULE = ModuleDefinition.builder("aop-test")
		.hostKernel("hold", List.of(ParamKind.INT32), (t) -> await(gate(t.intArg(0))))
		.build();

	static final KernelRef HOLD = KernelRef.of(MODULE, "hold");

	private AopTestKernels() {
	}

	static int newGate() {
		int id = gateIds.incrementAndGet();
		gates.put(id, new CountDownLatch(1));
		return id;
	}

	static void open(int id) {
		gate(id).countDown();
	}

	private static CountDownLatch gate(int id) {
		return gates.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("gate not opened within 60s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
