package dev.offload.template;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's 30-second example, as written there, runs on the host backend.
 */
class ReadmeExampleTests {

	static final KernelRef SCALE = KernelRef.of(ModuleDefinition.builder("scale")
		.imageResource("kernels/scale.ptx")
		.hostKernel("scale", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				t.floats(3).put(i, t.floatArg(1) * t.floats(2).get(i));
			}
		})
		.build(), "scale");

	@Test
	void readmeExampleShouldScaleOnTheHostBackend() {
		DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
		try {
			OffloadTemplate offload = new OffloadTemplate(registry);
			float[] x = { 1, 2, 3, 4, 5 };
			float factor = 3f;
			float[] y = offload.kernel(SCALE)
				.threads(x.length)
				.arg(x.length)
				.arg(factor)
				.in(x)
				.outFloats(x.length)
				.run()
				.floats(0);
			assertThat(y).containsExactly(3, 6, 9, 12, 15);
			assertThat(registry.device(0).streamPool().inUse()).isZero();
		}
		finally {
			registry.close(Duration.ofSeconds(5));
		}
	}

}
