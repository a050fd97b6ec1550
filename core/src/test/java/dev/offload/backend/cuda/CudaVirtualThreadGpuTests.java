package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.StreamPoolConfig;
import dev.offload.internal.VirtualThreads;
import dev.offload.virtualthreads.OnVirtualThreads;
import dev.offload.virtualthreads.PinnedEvents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Sessions on virtual threads on a real CUDA device: a virtual thread moves between
 * carrier threads, and the driver's current context belongs to the carrier, so every
 * session's result is checked; its waits park (no pinned event through Offload). Needs
 * Java 21+ (GPU_RUN_PARTS=vt runs it on the packed Java 25 runtime).
 */
@GpuTests
@Tag("java21")
class CudaVirtualThreadGpuTests {

	private static DeviceRegistry registry;

	private static Device device;

	private static Kernel saxpy;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create())
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
		// Loads what the waits use once before the recording: a first class loading under
		// contention pins.
		OnVirtualThreads.run(64, (i) -> saxpyChecked(i, wrong));
		PinnedEvents pinned = PinnedEvents.during(() -> {
			OnVirtualThreads.run(5_000, (i) -> saxpyChecked(i, wrong));
			return null;
		});
		assertThat(wrong).hasValue(0);
		assertThat(pinned.throughOffload()).isEmpty();
		assertThat(device.streamPool().inUse()).isZero();
	}

	private static void saxpyChecked(int seed, AtomicInteger wrong) {
		if (TestKernels.saxpyLast(device, saxpy, seed) != 2f * (1024 - 1 + seed) + 1) {
			wrong.incrementAndGet();
		}
	}

}
