package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.VirtualThreads;
import dev.offload.virtualthreads.OnVirtualThreads;
import dev.offload.virtualthreads.PinnedEvents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Sessions on virtual threads on a real CUDA device: a virtual thread moves between carrier threads, and the
 * driver's current context belongs to the carrier, so every session's result is checked; its waits park (no pinned
 * event through Offload). Needs Java 21+ (GPU_RUN_PARTS=vt runs it on the packed Java 25 runtime).
 */
@GpuTests
@Tag("java21")
class CudaVirtualThreadGpuTests {

	private static DeviceRegistry registry;

	private static Device device;

	private static Kernel saxpy;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaBackend.create())
			.deviceIds(List.of(0))
			.streamPool(StreamPoolConfig.DEFAULTS.withMaxSize(64).withBorrowTimeout(Duration.ofMinutes(1)))
			.build();
		device = registry.device(0);
		JCudaExceptionMode.configured().apply();
		saxpy = TestKernels.saxpy(device);
	}

	@AfterAll
	static void closeRegistry() {
		registry.close(Duration.ofSeconds(30));
	}

	@Test
	void sessionsWhenOnThousandsOfVirtualThreadsShouldComputeTheirOwnResultsWithoutPinning() throws Exception {
		assumeTrue(VirtualThreads.isSupported(), "Virtual threads need Java 21+");
		AtomicInteger wrong = new AtomicInteger();
		// Loads what the waits use once before the recording: a first class loading under contention pins.
		OnVirtualThreads.run(64, (i) -> saxpyChecked(i, wrong));
		PinnedEvents pinned = PinnedEvents.during(() -> {
			OnVirtualThreads.run(5_000, (i) -> saxpyChecked(i, wrong));
			return null;
		});
		assertThat(wrong).hasValue(0);
		assertThat(pinned.throughOffload()).isEmpty();
		assertThat(device.streamPool().inUse()).isZero();
	}

	/**
	 * y = 2x + 1 over 1,024 floats in one session, counting a wrong last element.
	 */
	private static void saxpyChecked(int seed, AtomicInteger wrong) {
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
			if (result.getFloats(0, new float[n])[n - 1] != 2f * (n - 1 + seed) + 1) {
				wrong.incrementAndGet();
			}
		}
	}

}
