package com.example.scaling;

import java.util.List;

import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.template.OffloadTemplate;

/**
 * The application's GPU code: scales an array on a device, with a host implementation for
 * machines without a GPU.
 */
public class ScalingService {

	// A real application adds .cudaSourceResource("kernels/scaling.cu") for its GPUs.
	static final ModuleDefinition MODULE = ModuleDefinition.builder("scaling")
		.hostKernel("scale", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				t.floats(2).put(i, t.floatArg(1) * t.floats(2).get(i));
			}
		})
		.build();

	static final KernelRef SCALE = KernelRef.of(MODULE, "scale");

	private final OffloadTemplate offload;

	/**
	 * Creates the service.
	 * @param offload the template that runs the GPU work
	 */
	public ScalingService(OffloadTemplate offload) {
		this.offload = offload;
	}

	/**
	 * Multiplies every value by a factor on a device.
	 * @param deviceId the device to run on
	 * @param values the values
	 * @param factor the factor
	 * @return the scaled values
	 */
	public float[] scale(int deviceId, float[] values, float factor) {
		return this.offload.execute(deviceId, (session) -> {
			HostBuffer host = session.hostBuffer(values);
			DeviceBuffer device = session.allocate(host.size());
			session.copy(host, device);
			session.launch(SCALE, LaunchConfig.forThreads(values.length, 32), values.length, factor, device);
			session.copy(device, host);
			session.synchronize();
			float[] result = new float[values.length];
			host.getFloats(0, result);
			return result;
		});
	}

}
