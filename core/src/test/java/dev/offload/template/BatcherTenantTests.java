package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.TenantPolicy;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch takes the queued items across tenants by their weights, so that a flooding
 * tenant cannot fill every batch.
 */
class BatcherTenantTests {

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).build();

	private final ThreadLocal<String> tenant = new ThreadLocal<>();

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void aBatchShouldTakeAQuietTenantsItemsBesideAFloodingOnes() throws Exception {
		OffloadTemplate template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, BatchListener.NONE,
				this.tenant::get);
		CountDownLatch firstBatchRuns = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		BatchFunction<String, String> function = (items) -> {
			batches.add(List.copyOf(items));
			if (batches.size() == 1) {
				// The dispatcher waits here while the flood and the quiet items queue.
				firstBatchRuns.countDown();
				await(release);
			}
			return CompletableFuture.completedFuture(items);
		};
		try (Batcher<String, String> batcher = template.batcher("tenants", function,
				BatchPolicy.DEFAULTS.withMaxBatchSize(4).withMaxDelay(Duration.ofMillis(1)))) {
			List<CompletableFuture<String>> results = new ArrayList<>();
			results.add(batcher.submit("first"));
			await(firstBatchRuns);
			this.tenant.set("flood");
			for (int i = 0; i < 20; i++) {
				results.add(batcher.submit("flood-" + i));
			}
			this.tenant.set("quiet");
			results.add(batcher.submit("quiet-0"));
			results.add(batcher.submit("quiet-1"));
			release.countDown();
			Awaitility.await()
				.atMost(Duration.ofMinutes(1))
				.until(() -> results.stream().allMatch(CompletableFuture::isDone));
		}
		// First come, first served would put both quiet items in the last batch.
		assertThat(batches.get(1)).contains("quiet-0", "quiet-1").hasSize(4);
		assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(23);
	}

	@Test
	void aCompletedBatchShouldNameEachItemsTenantInItsOrder() throws Exception {
		List<BatchListener.CompletedBatch> completed = new CopyOnWriteArrayList<>();
		OffloadTemplate template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, completed::add,
				this.tenant::get);
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		BatchFunction<String, String> function = (items) -> {
			batches.add(List.copyOf(items));
			return CompletableFuture.completedFuture(items);
		};
		try (Batcher<String, String> batcher = template.batcher("named", function,
				BatchPolicy.DEFAULTS.withMaxBatchSize(3).withMaxDelay(Duration.ofMinutes(1)))) {
			List<CompletableFuture<String>> results = new ArrayList<>();
			this.tenant.set("acme");
			results.add(batcher.submit("acme-0"));
			this.tenant.remove();
			results.add(batcher.submit("default-0"));
			this.tenant.set("acme");
			results.add(batcher.submit("acme-1"));
			CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
		}
		// The third item fills the batch: one batch of three.
		assertThat(batches).hasSize(1);
		assertThat(completed).hasSize(1);
		List<String> items = batches.get(0);
		String[] tenants = completed.get(0).tenants();
		assertThat(tenants).hasSize(3);
		for (int i = 0; i < items.size(); i++) {
			assertThat(tenants[i]).as(items.get(i))
				.isEqualTo(items.get(i).startsWith("acme") ? "acme" : TenantPolicy.DEFAULT_TENANT);
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(1, TimeUnit.MINUTES)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
