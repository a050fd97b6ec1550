package dev.offload.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.offload.template.BatchListener;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadAttributes;

/**
 * {@link BatchListener} that records, for every batch of the
 * {@link dev.offload.template.Batcher batchers}, the distribution summary
 * {@code offload.batch.size} (items per batch), the timer
 * {@code offload.batch.queue.delay} (each item's wait before its batch was dispatched)
 * and the counter {@code offload.batch.batches} (batches run; its rate is batches per
 * second), tagged {@code device} (the device's id, or {@code any} when the batcher does
 * not know it) and {@code kernel} (the batcher's name).
 */
public final class OffloadBatchMetrics implements BatchListener, MeterBinder {

	static final String BATCH_SIZE = "offload.batch.size";

	static final String BATCH_QUEUE_DELAY = "offload.batch.queue.delay";

	static final String BATCHES = "offload.batch.batches";

	private final List<Bound> registries = new CopyOnWriteArrayList<>();

	private final Map<String, String> deviceTags = new ConcurrentHashMap<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		Bound bound = new Bound(registry);
		// Batchers started before this registry was bound get their meters now.
		this.deviceTags.forEach(bound::meters);
		this.registries.add(bound);
	}

	@Override
	public void batcherStarted(Batcher<?, ?> batcher) {
		String device = (batcher.deviceId() == OffloadAttributes.ANY_DEVICE) ? "any"
				: String.valueOf(batcher.deviceId());
		this.deviceTags.put(batcher.name(), device);
		for (Bound bound : this.registries) {
			bound.meters(batcher.name(), device);
		}
	}

	@Override
	public void batchCompleted(CompletedBatch batch) {
		String device = this.deviceTags.getOrDefault(batch.name(), "any");
		for (Bound bound : this.registries) {
			Meters meters = bound.meters(batch.name(), device);
			meters.size.record(batch.size());
			meters.batches.increment();
			for (long delay : batch.queueDelaysNanos()) {
				meters.queueDelay.record(delay, TimeUnit.NANOSECONDS);
			}
		}
	}

	private record Key(String kernel, String device) {

	}

	private record Meters(DistributionSummary size, Timer queueDelay, Counter batches) {

	}

	/**
	 * One registry and the meters of each batcher and device in it.
	 */
	private static final class Bound {

		private final MeterRegistry registry;

		private final Map<Key, Meters> meters = new ConcurrentHashMap<>();

		Bound(MeterRegistry registry) {
			this.registry = registry;
		}

		Meters meters(String kernel, String device) {
			return this.meters.computeIfAbsent(new Key(kernel, device), this::register);
		}

		private Meters register(Key key) {
			Tags tags = Tags.of("device", key.device(), "kernel", key.kernel());
			return new Meters(
					DistributionSummary.builder(BATCH_SIZE)
						.description("Items per batch of a dynamic batcher")
						.baseUnit("items")
						.tags(tags)
						.register(this.registry),
					Timer.builder(BATCH_QUEUE_DELAY)
						.description("Time an item waited in a batcher's queue before its batch was dispatched")
						.tags(tags)
						.register(this.registry),
					Counter.builder(BATCHES)
						.description("Batches run by a dynamic batcher")
						.baseUnit("batches")
						.tags(tags)
						.register(this.registry));
		}

	}

}
