package dev.offload.backend.cuda;

import dev.offload.Device;
import dev.offload.DeviceRegistry;

/**
 * Reports, one {@code KEY=value} line each, the CUDA devices this process sees:
 * {@link MultiGpuTests} runs it in a JVM of its own with {@code CUDA_VISIBLE_DEVICES}
 * set, which the driver reads once, when it initialises.
 */
public final class VisibleDevicesScenario {

	private VisibleDevicesScenario() {
	}

	/**
	 * Runs the scenario.
	 * @param args none
	 */
	public static void main(String[] args) {
		System.out.println("CUDA_VISIBLE_DEVICES=" + System.getenv("CUDA_VISIBLE_DEVICES"));
		System.out.println("DEVICE_COUNT=" + CudaTestBackends.probe().deviceCount());
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create()).build()) {
			System.out.println("IDS=" + registry.ids());
			for (Device device : registry.devices()) {
				System.out.println("NAME_" + device.id() + "=" + device.name());
			}
		}
		System.out.println("JVM_ALIVE=true");
	}

}
