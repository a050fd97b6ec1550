package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link Batcher}s when their {@link DeviceRegistry} closes outside Spring: the queued
 * items are dispatched while the devices still lend, or failed with a
 * {@link BatcherClosedException} once the await-termination ends; none waits for ever,
 * and a submit after the close is refused at once.
 */
class BatcherShutdownTests {

	/** Generous: only "waits for ever" fails it, never a slow machine. */
	private static final Duration FOR_EVER = Duration.ofSeconds(30);

	private final CountDownLatch release = new CountDownLatch(1);

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@AfterEach
	void tearDown() {
		this.release.countDown();
		if (this.registry != null) {
			this.registry.close(Duration.ofSeconds(5));
		}
	}

	private void start(Duration awaitTermination) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.awaitTermination(awaitTermination)
			.build();
		this.template = new OffloadTemplate(this.registry);
	}

	/** Dispatches only a full batch: the delay never ends within a test. */
	private static BatchPolicy fullBatchesOf(int size) {
		return BatchPolicy.DEFAULTS.withMaxBatchSize(size).withMaxDelay(Duration.ofHours(1));
	}

	@Test
	void registryCloseShouldDispatchTheQueuedItemsWhileTheDevicesStillLend() {
		start(Duration.ofMinutes(1));
		Batcher<Double, Double> batcher = this.template.batcher(new BatcherTests.RootBatch(), fullBatchesOf(100));
		List<CompletableFuture<Double>> results = new ArrayList<>();
		for (int i = 1; i <= 3; i++) {
			results.add(batcher.submit((double) i * i));
		}
		this.registry.close();
		await().atMost(FOR_EVER).until(() -> results.stream().allMatch(CompletableFuture::isDone));
		assertThat(results).extracting(CompletableFuture::join).containsExactly(1.0, 2.0, 3.0);
		assertThat(this.template.batchers()).doesNotContain(batcher);
	}

	@Test
	void registryCloseShouldLetTheBatchInFlightEndAndDispatchTheQueueAfterIt() throws Exception {
		start(Duration.ofMinutes(1));
		CountDownLatch entered = new CountDownLatch(1);
		Batcher<Integer, Integer> batcher = this.template.batcher("held", (items) -> {
			entered.countDown();
			awaitQuietly(this.release);
			// The batch's work in a session of its own, as a @Batched method's is.
			return this.template.submit((session) -> items.stream().map((item) -> item * 10).toList());
		}, BatchPolicy.DEFAULTS.withMaxBatchSize(1).withMaxDelay(Duration.ofHours(1)));
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		results.add(batcher.submit(1));
		assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
		for (int i = 2; i <= 4; i++) {
			results.add(batcher.submit(i));
		}
		Thread closer = new Thread(() -> this.registry.close(), "registry-closer");
		closer.start();
		await().atMost(FOR_EVER).until(this.registry::isClosed);
		this.release.countDown();
		await().atMost(FOR_EVER).until(() -> results.stream().allMatch(CompletableFuture::isDone));
		assertThat(results).extracting(CompletableFuture::join).containsExactly(10, 20, 30, 40);
		closer.join(TimeUnit.SECONDS.toMillis(30));
		assertThat(closer.isAlive()).isFalse();
	}

	@Test
	void itemsStillQueuedWhenTheAwaitTerminationEndsShouldFailNamingTheBatcher() {
		start(Duration.ofMillis(200));
		CountDownLatch entered = new CountDownLatch(1);
		Batcher<Integer, Integer> batcher = this.template.batcher("stuck", (items) -> {
			entered.countDown();
			awaitQuietly(this.release);
			return CompletableFuture.completedFuture(items);
		}, BatchPolicy.DEFAULTS.withMaxBatchSize(1).withMaxDelay(Duration.ofHours(1)));
		CompletableFuture<Integer> inFlight = batcher.submit(1);
		awaitQuietly(entered);
		List<CompletableFuture<Integer>> queued = List.of(batcher.submit(2), batcher.submit(3), batcher.submit(4));
		this.registry.close();
		await().atMost(FOR_EVER).until(() -> queued.stream().allMatch(CompletableFuture::isDone));
		for (CompletableFuture<Integer> future : queued) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(future::get)
				.withCauseInstanceOf(BatcherClosedException.class)
				.withMessageContaining("'stuck'")
				.withMessageContaining("registry is shutting down");
		}
		// The batch held past the bound is failed too, rather than left to its function.
		await().atMost(FOR_EVER).until(inFlight::isDone);
		assertThat(inFlight).isCompletedExceptionally();
	}

	@Test
	void submitAfterTheRegistryClosedShouldBeRefusedAtOnce() {
		start(Duration.ofSeconds(10));
		Batcher<Double, Double> batcher = this.template.batcher(new BatcherTests.RootBatch(), fullBatchesOf(100));
		this.registry.close();
		assertThatExceptionOfType(BatcherClosedException.class).isThrownBy(() -> batcher.submit(4.0))
			.withMessageContaining("'root'")
			.withMessageContaining("registry is shutting down")
			.satisfies((ex) -> assertThat(ex.getBatcher()).isEqualTo("root"));
		assertThatExceptionOfType(BatcherClosedException.class)
			.isThrownBy(() -> this.template.batcher("late", (items) -> CompletableFuture.completedFuture(items),
					BatchPolicy.DEFAULTS))
			.withMessageContaining("'late'")
			.withMessageContaining("registry is shutting down");
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(60, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
