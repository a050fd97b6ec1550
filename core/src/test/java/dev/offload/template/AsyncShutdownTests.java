package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Shutdown with an asynchronous call in flight: the outputs it reads on the completion
 * executor after its session ended are page-locked memory, which the registry must not
 * free under the read (on CUDA such a read crashes the JVM; the host backend poisons
 * freed page-locked memory, so here it reads NaN).
 */
class AsyncShutdownTests {

	/** Holds the completion executor's tasks until opened. */
	private final CountDownLatch executorGate = new CountDownLatch(1);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
		.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
		.completionExecutor((task) -> this.executor.execute(() -> {
			awaitGate();
			task.run();
		}))
		.build();

	private final Device device = this.registry.device(0);

	private final OffloadTemplate template = new OffloadTemplate(this.registry);

	@AfterEach
	void tearDown() {
		this.executorGate.countDown();
		this.registry.close(Duration.ZERO);
		this.registry.backend().close();
		this.executor.shutdownNow();
	}

	@Test
	void closeWithARunAsyncWhoseOutputsAreNotYetReadShouldWaitAndDeliverThem() {
		float[] x = new float[4096];
		for (int i = 0; i < x.length; i++) {
			x[i] = i;
		}
		CompletableFuture<KernelResult> result = TemplateTestKernels.scaleAsync(this.template, x, 2f);
		// The session ends on its own; its outputs wait for the held executor.
		await().atMost(Duration.ofSeconds(30)).until(() -> this.device.activeSessions() == 0);
		CompletableFuture<Boolean> closed = CompletableFuture
			.supplyAsync(() -> this.registry.close(Duration.ofMinutes(1)));
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThatExceptionOfType(StreamPoolClosedException.class)
				.isThrownBy(this.device::openSession));
		this.executorGate.countDown();
		float[] out = result.join().floats(0);
		for (int i = 0; i < x.length; i++) {
			assertThat(out[i]).as("output %d", i).isEqualTo(2f * i);
		}
		assertThat(closed.join()).isTrue();
		assertThat(this.device.memoryStatistics().hostUsedBytes()).isZero();
	}

	private void awaitGate() {
		try {
			this.executorGate.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
