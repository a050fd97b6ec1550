package dev.offload.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.offload.Device;
import dev.offload.OffloadListener;
import dev.offload.StreamPriority;

/**
 * {@link OffloadListener} that records the timer {@code offload.streams.acquire} (time to
 * borrow a stream), tagged {@code device} and {@code backend}, in every registry it is
 * {@link #bindTo(MeterRegistry) bound} to. Session durations are the
 * {@code offload.session} observation's timer (see
 * {@link dev.offload.spring.observation.OffloadObservationListener}), not a second timer
 * here. Being a {@link MeterBinder} rather than taking a registry, it can be given to a
 * {@link dev.offload.DeviceRegistry} before any meter registry exists; what happens
 * before it is bound is not recorded.
 */
public final class OffloadSessionMetrics implements OffloadListener, MeterBinder {

	private final List<Bound> registries = new CopyOnWriteArrayList<>();

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(new Bound(registry));
	}

	@Override
	public void streamBorrowed(Device device, StreamPriority priority, long waitNanos) {
		for (Bound bound : this.registries) {
			bound.timer(device).record(waitNanos, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * One registry and the timer of each device in it, so that recording does not look
	 * meters up.
	 */
	private static final class Bound {

		private final MeterRegistry registry;

		private final Map<Device, Timer> byDevice = new ConcurrentHashMap<>();

		Bound(MeterRegistry registry) {
			this.registry = registry;
		}

		Timer timer(Device device) {
			return this.byDevice.computeIfAbsent(device, (key) -> OffloadMeters.acquireTimer(this.registry, key));
		}

	}

}
