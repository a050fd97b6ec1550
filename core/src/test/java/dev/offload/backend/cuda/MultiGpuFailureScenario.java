package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;

/**
 * Fails GPU 1 with a kernel that writes far outside its buffer, then reports, one
 * {@code KEY=value} line each, what the other GPUs still do. {@link MultiGpuTests} runs
 * it in its own JVM, as {@link OutOfBoundsScenario}: the sticky error ruins GPU 1's
 * primary context for the rest of the process.
 */
public final class MultiGpuFailureScenario {

	private static final int N = 1 << 16;

	private MultiGpuFailureScenario() {
	}

	/**
	 * Runs the scenario.
	 * @param args the {@link JCudaExceptionMode} to switch to once the registry has
	 * started (the run's mode if none)
	 */
	public static void main(String[] args) {
		JCudaExceptionMode mode = (args.length > 0) ? JCudaExceptionMode.valueOf(args[0])
				: JCudaExceptionMode.configured();
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create()).build()) {
			mode.apply();
			System.out.println("MODE=" + mode);
			System.out.println("DEVICES=" + registry.ids());
			// Every module loads before the failure: loading on a failed device is
			// refused.
			registry.devices().forEach(TestKernels::saxpy);
			Device failing = registry.device(1);
			Kernel write = failing.loadModule(TestKernels.OUT_OF_BOUNDS).kernel("writeOutOfBounds");
			try (OffloadSession session = failing.openSession()) {
				session.launch(write, LaunchConfig.of(1, 1), session.allocate(4), 1L << 40);
				session.synchronize();
				System.out.println("SYNCHRONIZE=returned");
			}
			catch (BackendException ex) {
				System.out.println("SYNCHRONIZE_ERROR=" + ex.getErrorName() + " sticky=" + ex.isSticky());
			}
			for (Device device : registry.devices()) {
				System.out.println("HEALTHY_" + device.id() + "=" + device.isHealthy());
			}
			for (Device device : registry.devices()) {
				if (device.isHealthy()) {
					System.out.println("SAXPY_" + device.id() + "=" + (saxpyIsRight(device) ? "right" : "wrong"));
				}
			}
			List<OffloadSession> held = new ArrayList<>();
			try {
				for (int i = 0; i < 2 * registry.devices().size(); i++) {
					held.add(registry.openSession());
				}
				List<Integer> placed = held.stream().map((session) -> session.device().id()).toList();
				System.out.println("LEAST_BUSY_DEVICES=" + new TreeSet<>(placed));
				System.out.println("LEAST_BUSY_ON_1=" + placed.stream().filter((id) -> id == 1).count());
			}
			finally {
				held.forEach(OffloadSession::close);
			}
			try (OffloadSession next = failing.openSession()) {
				System.out.println("OPEN_SESSION_1=opened " + next);
			}
			catch (DeviceFailedException ex) {
				System.out.println("OPEN_SESSION_1=DeviceFailedException " + ex.getMessage());
			}
		}
		System.out.println("REGISTRY_CLOSED=true");
		System.out.println("JVM_ALIVE=true");
	}

	private static boolean saxpyIsRight(Device device) {
		float[] x = new float[N];
		float[] y = new float[N];
		float[] expected = new float[N];
		for (int i = 0; i < N; i++) {
			x[i] = i;
			y[i] = 1;
			expected[i] = Math.fma(x[i], 3f, y[i]);
		}
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer dx = session.allocate((long) N * Float.BYTES);
			DeviceBuffer dy = session.allocate((long) N * Float.BYTES);
			session.copy(session.hostBuffer(x), dx);
			session.copy(session.hostBuffer(y), dy);
			session.launch(TestKernels.saxpy(device), LaunchConfig.forThreads(N, 256), N, 3f, dx, dy);
			HostBuffer result = session.allocateHost((long) N * Float.BYTES);
			session.copy(dy, result);
			session.synchronize();
			return Arrays.equals(result.getFloats(0, new float[N]), expected);
		}
	}

}
