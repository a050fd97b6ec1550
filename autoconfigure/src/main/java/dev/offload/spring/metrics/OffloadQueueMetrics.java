package dev.offload.spring.metrics;

import java.util.List;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadAttributes;

/**
 * {@link MeterBinder} for the work waiting on each device, in the shape load-aware
 * gateways read (a queue-size gauge per pod, as the Gateway API Inference Extension's
 * endpoint picker scrapes a model server's queued requests): the gauge
 * {@code offload.queued}, tagged {@code device} and {@code backend}, counts the borrowers
 * waiting for a stream, the sessions waiting for the memory budget and the items queued
 * in the batchers that run on the device. A batcher free to use any device counts on the
 * registry's device when it has one, and otherwise under {@code device="any"}. The
 * running work beside it is {@code offload.streams.active} (sessions holding a stream).
 */
public final class OffloadQueueMetrics implements MeterBinder {

	private final DeviceRegistry registry;

	private final Supplier<List<Batcher<?, ?>>> batchers;

	/**
	 * Creates a binder.
	 * @param registry the devices whose queues to measure
	 * @param batchers the batchers whose queued items count (a template's
	 * {@link dev.offload.template.OffloadTemplate#batchers()}), read at each scrape
	 */
	public OffloadQueueMetrics(DeviceRegistry registry, Supplier<List<Batcher<?, ?>>> batchers) {
		this.registry = registry;
		this.batchers = batchers;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		List<Device> devices = this.registry.devices();
		boolean single = devices.size() == 1;
		for (Device device : devices) {
			register(meterRegistry, OffloadMeters.tags(device), device, single);
		}
		if (!single && !devices.isEmpty()) {
			register(meterRegistry, Tags.of("device", "any", "backend", devices.get(0).backendName()), null, false);
		}
	}

	private void register(MeterRegistry meterRegistry, Tags tags, @Nullable Device device, boolean countsAnyDevice) {
		Gauge.builder(OffloadMeters.QUEUED, this, (metrics) -> metrics.queued(device, countsAnyDevice))
			.description("Work waiting on the device: borrowers waiting for a stream, sessions waiting for the "
					+ "memory budget, items queued in its batchers")
			.baseUnit(OffloadMeters.UNIT_REQUESTS)
			.tags(tags)
			// Held by the gauge: a binder bound and then dropped (not a bean) would
			// otherwise be collected, and the gauge read NaN.
			.strongReference(true)
			.register(meterRegistry);
	}

	/**
	 * Returns the work waiting on a device, or in the batchers free to use any device.
	 * @param device the device, or {@code null} for the batchers free to use any device
	 * @param countsAnyDevice whether the device also counts those batchers
	 */
	private double queued(@Nullable Device device, boolean countsAnyDevice) {
		long queued = 0;
		if (device != null) {
			queued += device.streamPool().waiting();
			queued += device.memoryStatistics().waiting();
		}
		int id = (device != null) ? device.id() : OffloadAttributes.ANY_DEVICE;
		for (Batcher<?, ?> batcher : this.batchers.get()) {
			int runsOn = batcher.deviceId();
			if (runsOn == id || (countsAnyDevice && runsOn == OffloadAttributes.ANY_DEVICE)) {
				queued += batcher.statistics().queued();
			}
		}
		return queued;
	}

}
