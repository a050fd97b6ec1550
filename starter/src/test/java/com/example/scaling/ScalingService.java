package com.example.scaling;

import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.template.OffloadTemplate;

import java.util.List;

/**
 * The application's GPU code: scales an array on a device, with a host implementation for machines without a GPU.
 */
public class ScalingService {

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

	public ScalingService(OffloadTemplate offload) {
		this.offload = offload;
	}

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
