package dev.offload.backend.cuda;

import java.util.List;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;

/**
 * Runs a kernel that writes far outside its buffer and reports, one {@code KEY=value}
 * line each, what the process saw. {@link CudaDeviceFailureGpuTests} runs it in its own
 * JVM: the sticky error ruins the device's primary context for the rest of the process,
 * and the test proves the process lives on. JCuda's exception mode is switched once the
 * registry has started, to the mode named by the first argument.
 */
public final class OutOfBoundsScenario {

	private OutOfBoundsScenario() {
	}

	/**
	 * Runs the scenario.
	 * @param args the {@link JCudaExceptionMode} to switch to once the registry has
	 * started (the run's mode if none)
	 */
	public static void main(String[] args) {
		JCudaExceptionMode mode = (args.length > 0) ? JCudaExceptionMode.valueOf(args[0])
				: JCudaExceptionMode.configured();
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create())
			.deviceIds(List.of(0))
			.build()) {
			mode.apply();
			System.out.println("MODE=" + mode);
			Device device = registry.device(0);
			Kernel write = device.loadModule(TestKernels.OUT_OF_BOUNDS).kernel("writeOutOfBounds");
			try (OffloadSession session = device.openSession()) {
				// An event in the pool makes the registry's close destroy one after the
				// sticky error; recorded before the launch, so that the launch's error
				// surfaces from the synchronize below, not from the record.
				session.recordEvent();
				// For a parent that times the GPU's own report of the fault
				// (NvmlGpuFaultGpuTests).
				System.out.println("LAUNCH_AT=" + System.currentTimeMillis());
				session.launch(write, LaunchConfig.of(1, 1), session.allocate(4), 1L << 40);
				session.synchronize();
				System.out.println("SYNCHRONIZE=returned");
			}
			catch (BackendException ex) {
				System.out.println("SYNCHRONIZE_ERROR=" + ex.getErrorName() + " sticky=" + ex.isSticky());
				System.out.println("MESSAGE=" + ex.getMessage());
			}
			System.out.println("HEALTHY=" + device.isHealthy());
			System.out.println("FAILURE=" + device.failure().map(Throwable::getMessage).orElse("none"));
			try (OffloadSession next = device.openSession()) {
				System.out.println("OPEN_SESSION=opened " + next);
			}
			catch (DeviceFailedException ex) {
				System.out.println("OPEN_SESSION=DeviceFailedException " + ex.getMessage());
			}
		}
		System.out.println("REGISTRY_CLOSED=true");
		System.out.println("JVM_ALIVE=true");
	}

}
