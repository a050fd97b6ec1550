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
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;

/**
 * {@link OffloadListener} that records the timers {@code offload.streams.acquire} (time to borrow a stream) and
 * {@code offload.sessions} (session duration), tagged {@code device} and {@code backend}, in every registry it is
 * {@link #bindTo(MeterRegistry) bound} to. Being a {@link MeterBinder} rather than taking a registry, it can be
 * given to a {@link dev.offload.DeviceRegistry} before any meter registry exists; what happens before it is bound is
 * not recorded.
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
			bound.timers(device).acquire.record(waitNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
		for (Bound bound : this.registries) {
			bound.timers(session.device()).session.record(durationNanos, TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * One registry and the timers of each device in it, so that recording does not look meters up.
	 */
	private static final class Bound {

		private final MeterRegistry registry;

		private final Map<Device, DeviceTimers> byDevice = new ConcurrentHashMap<>();

		Bound(MeterRegistry registry) {
			this.registry = registry;
		}

		DeviceTimers timers(Device device) {
			return this.byDevice.computeIfAbsent(device, (key) -> new DeviceTimers(
					OffloadMeters.acquireTimer(this.registry, key), OffloadMeters.sessionTimer(this.registry, key)));
		}

	}

	private record DeviceTimers(Timer acquire, Timer session) {

	}

}
