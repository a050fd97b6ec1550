package dev.offload.test.kernel;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * Ready kernels for tests, with host implementations: one that does nothing, SAXPY, a
 * gate that holds its stream until released, a slow kernel, a kernel that fails and one
 * that fails its device for good.
 */
public final class TestKernels {

	/**
	 * The module of the kernels below; load it on a device or launch its kernels by
	 * reference.
	 */
	public static final ModuleDefinition MODULE = ModuleDefinition.builder("offload-test")
		.hostKernel("noop", List.of(), (t) -> {
		})
		.hostKernel("saxpy", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				t.floats(3).put(i, t.floatArg(1) * t.floats(2).get(i) + t.floats(3).get(i));
			}
		})
		.hostKernel("gate", List.of(ParamKind.INT32), (t) -> Gate.hold(t, t.intArg(0)))
		// A stand-in for work that takes a while, never used to wait for another thread.
		// A GPU runs a launch's threads side by side, the host one after the other: only
		// the grid's first thread waits, so a launch takes its time once, whatever its
		// shape.
		.hostKernel("slow", List.of(ParamKind.INT32), (t) -> {
			if (isFirstOfGrid(t)) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(t.intArg(0)));
			}
		})
		.hostKernel("fail", List.of(ParamKind.INT32), (t) -> {
			throw new IllegalStateException("kernel failed on purpose " + t.intArg(0));
		})
		// The host backend treats an access outside a buffer as a GPU's illegal address:
		// a sticky device error.
		.hostKernel("stickyFault", List.of(), (t) -> {
			throw new IndexOutOfBoundsException("stickyFault kernel writes outside its buffer on purpose");
		})
		.build();

	/** Does nothing; no argument. */
	public static final KernelRef NOOP = KernelRef.of(MODULE, "noop");

	/**
	 * {@code y = a * x + y} over {@code n} floats; arguments {@code n}, {@code a},
	 * {@code x}, {@code y}.
	 */
	public static final KernelRef SAXPY = KernelRef.of(MODULE, "saxpy");

	/**
	 * Holds its stream until its {@link Gate} is released; one argument, the gate's id
	 * (use {@link Gate#launch}). On the host emulation it holds no worker while it waits.
	 */
	public static final KernelRef GATE = KernelRef.of(MODULE, "gate");

	/**
	 * Takes the number of milliseconds of its one {@code int} argument, once per launch
	 * whatever its shape (the grid's first thread waits, the others return at once); on
	 * the host emulation it occupies one of the device's workers for that time, as work
	 * does. {@code LaunchConfig.of(1, 1)} is enough.
	 */
	public static final KernelRef SLOW = KernelRef.of(MODULE, "slow");

	/**
	 * Fails its launch (not its device) with a message naming its one {@code int}
	 * argument.
	 */
	public static final KernelRef FAIL = KernelRef.of(MODULE, "fail");

	/**
	 * Fails its device with a sticky error, as an illegal address does on a GPU; no
	 * argument.
	 */
	public static final KernelRef STICKY_FAULT = KernelRef.of(MODULE, "stickyFault");

	private TestKernels() {
	}

	private static boolean isFirstOfGrid(HostThread t) {
		return (t.threadIdxX() | t.threadIdxY() | t.threadIdxZ() | t.blockIdxX() | t.blockIdxY() | t.blockIdxZ()) == 0;
	}

}
