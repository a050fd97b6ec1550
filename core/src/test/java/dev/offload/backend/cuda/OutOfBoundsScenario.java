package dev.offload.backend.cuda;

import java.util.List;

import dev.offload.Device;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendException;

/**
 * Runs a kernel that writes far outside its buffer and reports, one {@code KEY=value} line each, what the process
 * saw. {@link CudaDeviceFailureGpuTests} runs it in its own JVM: the sticky error ruins the device's primary context
 * for the rest of the process, and the test proves the process lives on.
 */
public final class OutOfBoundsScenario {

	private OutOfBoundsScenario() {
	}

	/**
	 * Runs the scenario.
	 * @param args unused
	 */
	public static void main(String[] args) {
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaBackend.create()).deviceIds(List.of(0)).build()) {
			Device device = registry.device(0);
			Kernel write = device.loadModule(TestKernels.OUT_OF_BOUNDS).kernel("writeOutOfBounds");
			try (OffloadSession session = device.openSession()) {
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
