package dev.offload.spring.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadBatchMetrics}.
 */
class OffloadBatchMetricsTests {

	private final OffloadBatchMetrics metrics = new OffloadBatchMetrics();

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
		.build();

	private final OffloadTemplate template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, this.metrics);

	@AfterEach
	void close() {
		this.template.batchers().forEach(Batcher::close);
		this.registry.close();
	}

	@Test
	void metersWhenBatcherStartedShouldExistBeforeItsFirstBatch() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		this.metrics.bindTo(meters);
		this.template.batcher("idle", (items) -> CompletableFuture.completedFuture(items), BatchPolicy.DEFAULTS);
		assertThat(meters.get("offload.batch.batches").tags("kernel", "idle", "device", "any").counter().count())
			.isZero();
		assertThat(meters.get("offload.batch.size").tags("kernel", "idle").summary().count()).isZero();
	}

	@Test
	void metersWhenBoundAfterTheBatcherStartedShouldExistToo() {
		this.template.batcher("early", (items) -> CompletableFuture.completedFuture(items), BatchPolicy.DEFAULTS);
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		this.metrics.bindTo(meters);
		assertThat(meters.get("offload.batch.batches").tags("kernel", "early", "device", "any").counter().count())
			.isZero();
	}

	@Test
	void metersWhenBatchesRanShouldRecordSizesDelaysAndCount() throws Exception {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		this.metrics.bindTo(meters);
		Batcher<Integer, Integer> batcher = this.template.batcher("double",
				(items) -> CompletableFuture.completedFuture(items.stream().map((item) -> 2 * item).toList()),
				BatchPolicy.DEFAULTS.withMaxBatchSize(3).withMaxDelay(Duration.ofHours(1)));
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			results.add(batcher.submit(i));
		}
		for (CompletableFuture<Integer> result : results) {
			result.get(10, TimeUnit.SECONDS);
		}
		DistributionSummary size = meters.get("offload.batch.size").tags("kernel", "double", "device", "any").summary();
		assertThat(size.count()).isEqualTo(2);
		assertThat(size.totalAmount()).isEqualTo(6);
		assertThat(size.getId().getBaseUnit()).isEqualTo("items");
		assertThat(meters.get("offload.batch.queue.delay").tags("kernel", "double").timer().count()).isEqualTo(6);
		assertThat(meters.get("offload.batch.batches").tags("kernel", "double").counter().count()).isEqualTo(2);
	}

}
