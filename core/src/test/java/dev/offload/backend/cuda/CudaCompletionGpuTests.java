package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asynchronous completion on a real device: joiners woken by the completion thread,
 * dependent stages never run on it, a pool grown under a burst.
 */
@GpuTests
class CudaCompletionGpuTests {

	private static DeviceRegistry registry;

	private static Device device;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		device = registry.device(0);
		JCudaExceptionMode.configured().apply();
		device.loadModule(TestKernels.EMPTY);
	}

	@AfterAll
	static void closeRegistry() {
		if (registry != null) {
			registry.close();
		}
	}

	@Test
	void sessionsClosedAsynchronouslyShouldRunTheirStagesOffTheCompletionThread() {
		Kernel empty = device.loadModule(TestKernels.EMPTY).kernel("empty");
		Queue<String> threads = new ConcurrentLinkedQueue<>();
		List<CompletableFuture<?>> stages = new ArrayList<>();
		List<CompletableFuture<Void>> closed = new ArrayList<>();
		for (int i = 0; i < 4096; i++) {
			OffloadSession session = device.openSession();
			session.launch(empty, LaunchConfig.of(1, 1));
			CompletableFuture<Void> future = session.closeAsync();
			closed.add(future);
			stages.add(future.thenRun(() -> threads.add(Thread.currentThread().getName())));
			stages.add(CompletableFuture.allOf(future).thenRun(() -> threads.add(Thread.currentThread().getName())));
		}
		// Joined one by one (the joiners are woken by the completion thread), then every
		// stage.
		closed.forEach(CompletableFuture::join);
		CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).join();
		assertThat(threads).hasSize(2 * 4096).doesNotContain("offload-device0-completion");
		assertThat(device.streamPool().statistics().inUse()).isZero();
	}

	@Test
	void closeAsyncJoinShouldReturnEachSessionsOutcome() {
		Kernel empty = device.loadModule(TestKernels.EMPTY).kernel("empty");
		for (int i = 0; i < 2000; i++) {
			OffloadSession session = device.openSession();
			session.launch(empty, LaunchConfig.of(1, 1));
			CompletableFuture<Void> closed = session.closeAsync();
			assertThat(closed.join()).isNull();
			assertThat(closed).isDone();
		}
		assertThat(device.streamPool().statistics().inUse()).isZero();
	}

}
