package dev.offload.backend.cuda;

import java.util.concurrent.TimeUnit;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * The test kernels of {@code src/test/resources/kernels}: their PTX (built by
 * {@code scripts/gpu/build-ptx.sh}), or with {@value #FROM_SOURCE_PROPERTY} their CUDA C
 * sources; and helpers to drive the spin kernel.
 */
final class TestKernels {

	/**
	 * How long a spin kernel waits for its release before it gives up: a safety net,
	 * never reached by a pass.
	 */
	static final long SPIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

	/** The spin kernel's outcome when another stream released it. */
	static final int RELEASED = 1;

	/**
	 * The system property that builds the test modules from their CUDA C sources
	 * (compiled by NVRTC) instead of the committed PTX, so that the whole CUDA suite runs
	 * on source-compiled kernels ({@code GPU_RUN_PARTS=source}).
	 */
	static final String FROM_SOURCE_PROPERTY = "offload.test.kernels-from-source";

	static final boolean FROM_SOURCE = Boolean.getBoolean(FROM_SOURCE_PROPERTY);

	static final ModuleDefinition EMPTY = module("empty").build();

	static final ModuleDefinition SAXPY = module("saxpy").build();

	static final ModuleDefinition SPIN = module("spin")
		.signature("spinUntilReleased", ParamKind.POINTER, ParamKind.POINTER, ParamKind.INT64)
		.build();

	static final ModuleDefinition OUT_OF_BOUNDS = module("oob").build();

	private TestKernels() {
	}

	private static ModuleDefinition.Builder module(String name) {
		ModuleDefinition.Builder builder = ModuleDefinition.builder(name);
		return FROM_SOURCE ? builder.cudaSourceResource("kernels/" + name + ".cu")
				: builder.imageResource("kernels/" + name + ".ptx");
	}

	static Kernel saxpy(Device device) {
		return device.loadModule(SAXPY).kernel("saxpy");
	}

	static Kernel spin(Device device) {
		return device.loadModule(SPIN).kernel("spinUntilReleased");
	}

	/**
	 * Allocates a zeroed release flag for the spin kernel.
	 */
	static DeviceBuffer releaseFlag(Device device) {
		DeviceBuffer flag = device.allocate(Integer.BYTES);
		try (OffloadSession session = device.openSession()) {
			session.fill(flag, (byte) 0);
		}
		return flag;
	}

	/**
	 * Enqueues a spin kernel on {@code session} that runs until {@link #release} and then
	 * writes its outcome.
	 */
	static DeviceBuffer launchSpin(OffloadSession session, DeviceBuffer releaseFlag) {
		DeviceBuffer outcome = session.allocate(Integer.BYTES);
		session.fill(outcome, (byte) 0);
		session.launch(spin(session.device()), LaunchConfig.of(1, 1), releaseFlag, outcome, SPIN_LIMIT_NANOS);
		return outcome;
	}

	/**
	 * Releases spinning kernels from another session's stream, which proves that stream
	 * is not held up by them.
	 */
	static void release(Device device, DeviceBuffer releaseFlag) {
		try (OffloadSession releaser = device.openSession()) {
			HostBuffer one = releaser.allocateHost(Integer.BYTES).putInts(0, new int[] { 1 });
			releaser.copy(one, releaseFlag);
		}
	}

	/**
	 * Fills the device's buffer cache with the blocks the concurrent tests use, so that
	 * no allocation runs while a spin kernel holds the device: the tests are about
	 * streams, not about whether the driver's allocator waits.
	 */
	static void warmBufferCache(Device device, int sessions) {
		try (OffloadSession session = device.openSession()) {
			for (int i = 0; i < 2 * sessions; i++) {
				session.allocate(4096);
				session.allocate(256);
				session.allocateHost(4096);
				session.allocateHost(4096);
				session.allocateHost(256);
			}
		}
	}

	/**
	 * Runs y = 2x + 1 over 1,024 floats (x = index + seed) in a session of its own and
	 * returns y's last element, {@code 2 * (1023 + seed) + 1} when right.
	 */
	static float saxpyLast(Device device, Kernel saxpy, int seed) {
		int n = 1024;
		float[] x = new float[n];
		float[] y = new float[n];
		for (int i = 0; i < n; i++) {
			x[i] = i + seed;
			y[i] = 1;
		}
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer dx = session.allocate((long) n * Float.BYTES);
			DeviceBuffer dy = session.allocate((long) n * Float.BYTES);
			session.copy(session.hostBuffer(x), dx);
			session.copy(session.hostBuffer(y), dy);
			session.launch(saxpy, LaunchConfig.forThreads(n, 128), n, 2f, dx, dy);
			HostBuffer result = session.allocateHost((long) n * Float.BYTES);
			session.copy(dy, result);
			session.synchronize();
			return result.getFloats(0, new float[n])[n - 1];
		}
	}

	static int readInt(OffloadSession session, DeviceBuffer buffer) {
		HostBuffer host = session.allocateHost(Integer.BYTES);
		session.copy(buffer, host);
		session.synchronize();
		return host.getInts(0, new int[1])[0];
	}

}
