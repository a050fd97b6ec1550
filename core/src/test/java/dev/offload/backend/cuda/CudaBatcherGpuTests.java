package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.template.BatchKernel;
import dev.offload.template.BatchPolicy;
import dev.offload.template.BatchTimeoutException;
import dev.offload.template.Batcher;
import dev.offload.template.KernelCall;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link Batcher} on a CUDA device: concurrent items gathered into one launch, each
 * caller's result bit-identical to an unbatched launch of its item, and a deadline that
 * passes in the queue failing its item alone.
 */
@GpuTests
class CudaBatcherGpuTests {

	static final KernelRef SCALE = KernelRef
		.of(ModuleDefinition.builder("scale").imageResource("kernels/scale.ptx").build(), "scale");

	private static DeviceRegistry registry;

	private static OffloadTemplate template;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		template = new OffloadTemplate(registry);
		JCudaExceptionMode.configured().apply();
	}

	@AfterEach
	void closeBatchers() {
		template.batchers().forEach(Batcher::close);
	}

	@AfterAll
	static void closeRegistry() {
		if (registry != null) {
			registry.close();
		}
	}

	/** Each item scaled by pi, one thread per item. */
	static final class ScaleBatch implements BatchKernel<Float, Float> {

		@Override
		public KernelRef kernel() {
			return SCALE;
		}

		@Override
		public void gather(List<Float> items, KernelCall call) {
			int n = items.size();
			float[] x = new float[n];
			for (int i = 0; i < n; i++) {
				x[i] = items.get(i);
			}
			call.threads(n).arg(n).arg((float) Math.PI).in(x).outFloats(n);
		}

		@Override
		public Float slice(KernelResult result, int index) {
			return result.floats(0)[index];
		}

	}

	@Test
	void concurrentItemsShouldRunAsOneLaunchWithResultsBitIdenticalToUnbatchedLaunches() throws Exception {
		Batcher<Float, Float> batcher = template.batcher(new ScaleBatch(),
				BatchPolicy.DEFAULTS.withMaxBatchSize(256).withMaxDelay(Duration.ofHours(1)));
		List<CompletableFuture<Float>> batched = new ArrayList<>();
		for (int i = 0; i < 256; i++) {
			batched.add(batcher.submit(1.1f * i + 0.013f));
		}
		for (int i = 0; i < 256; i++) {
			float alone = template.kernel(SCALE)
				.threads(1)
				.arg(1)
				.arg((float) Math.PI)
				.in(new float[] { 1.1f * i + 0.013f })
				.outFloats(1)
				.run()
				.floats(0)[0];
			assertThat(Float.floatToRawIntBits(batched.get(i).get(30, TimeUnit.SECONDS)))
				.isEqualTo(Float.floatToRawIntBits(alone));
		}
		assertThat(batcher.statistics().batches()).isOne();
		assertThat(batcher.statistics().items()).isEqualTo(256);
	}

	@Test
	void itemWhoseDeadlinePassedInTheQueueShouldFailAloneOnTheDevice() throws Exception {
		Batcher<Float, Float> batcher = template.batcher(new ScaleBatch(),
				BatchPolicy.DEFAULTS.withMaxBatchSize(2).withMaxDelay(Duration.ofHours(1)));
		CompletableFuture<Float> late = batcher.submit(1f, Duration.ofNanos(1));
		CompletableFuture<Float> onTime = batcher.submit(2f);
		assertThat(onTime.get(30, TimeUnit.SECONDS)).isEqualTo((float) (2 * Math.PI));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(BatchTimeoutException.class);
	}

}
