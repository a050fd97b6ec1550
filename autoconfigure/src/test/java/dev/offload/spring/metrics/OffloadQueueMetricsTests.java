package dev.offload.spring.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.MemoryConfig;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link OffloadQueueMetrics}: borrowers waiting for a stream, sessions waiting
 * for the memory budget and items queued in batchers all count as work waiting on a
 * device.
 */
class OffloadQueueMetricsTests {

	private static final BatchPolicy HOLDING = BatchPolicy.DEFAULTS.withMaxBatchSize(100)
		.withMaxDelay(Duration.ofMinutes(5));

	private final MeterRegistry meters = new SimpleMeterRegistry();

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void queuedWhenABorrowerWaitsForAStreamShouldCountIt() {
		DeviceRegistry registry = register(DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(1, 1, Duration.ofSeconds(30)))
			.build());
		assertCountedWhileASessionWaits(registry, OffloadSession::streamId);
	}

	@Test
	void queuedWhenASessionWaitsForTheMemoryBudgetShouldCountIt() {
		DeviceRegistry registry = register(
				DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).memoryBytes(64L << 20).build())
					.memory(MemoryConfig.ofBytes(1L << 20))
					.build());
		assertCountedWhileASessionWaits(registry, (session) -> session.allocate(1L << 20));
	}

	@Test
	void queuedWhenItemsWaitInABatcherOfTheOnlyDeviceShouldCountThem() {
		DeviceRegistry registry = register(
				DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build()).build());
		OffloadTemplate template = new OffloadTemplate(registry);
		new OffloadQueueMetrics(registry, template::batchers).bindTo(this.meters);
		Batcher<Integer, Integer> batcher = register(
				template.batcher("held", (items) -> CompletableFuture.completedFuture(items), HOLDING));
		batcher.submit(1);
		batcher.submit(2);
		batcher.submit(3);
		assertThat(queued("0")).isEqualTo(3);
	}

	@Test
	void queuedWhenSeveralDevicesShouldShowBatchersFreeToUseAnyUnderAny() {
		DeviceRegistry registry = register(
				DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build()).build());
		OffloadTemplate template = new OffloadTemplate(registry);
		new OffloadQueueMetrics(registry, template::batchers).bindTo(this.meters);
		Batcher<Integer, Integer> batcher = register(
				template.batcher("held", (items) -> CompletableFuture.completedFuture(items), HOLDING));
		batcher.submit(1);
		batcher.submit(2);
		assertThat(queued("any")).isEqualTo(2);
		assertThat(queued("0")).isZero();
		assertThat(queued("1")).isZero();
	}

	/**
	 * One session holds what a second one then asks for: the second waits, and counts as
	 * queued on device 0 until the first gives it back.
	 */
	private void assertCountedWhileASessionWaits(DeviceRegistry registry, Function<OffloadSession, ?> take) {
		new OffloadQueueMetrics(registry, List::of).bindTo(this.meters);
		OffloadSession holder = registry.openSession(0);
		take.apply(holder);
		OffloadSession waiter = registry.openSession(0);
		// A thread of its own: the common pool may be one thread, busy with another's
		// task.
		CompletableFuture<?> waiting = CompletableFuture.supplyAsync(() -> take.apply(waiter),
				(task) -> new Thread(task, "queued-waiter").start());
		await().atMost(Duration.ofSeconds(10)).until(() -> queued("0") == 1);
		holder.close();
		assertThat(waiting).succeedsWithin(Duration.ofSeconds(10));
		waiter.close();
		assertThat(queued("0")).isZero();
	}

	private double queued(String device) {
		return this.meters.get("offload.queued").tag("device", device).gauge().value();
	}

	private <T extends AutoCloseable> T register(T resource) {
		this.resources.add(resource);
		return resource;
	}

}
