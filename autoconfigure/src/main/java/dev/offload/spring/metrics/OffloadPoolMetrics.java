package dev.offload.spring.metrics;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.StreamPoolStatistics;
import dev.offload.StreamPriority;
import dev.offload.leak.LeakDetector;

/**
 * {@link MeterBinder} for the stream pools of a {@link DeviceRegistry}, in the style of
 * {@code hikaricp.connections.*}: gauges {@code offload.streams},
 * {@code offload.streams.active}, {@code offload.streams.idle},
 * {@code offload.streams.pending} (borrowers waiting),
 * {@code offload.streams.oldest.wait} (how long the oldest of them has waited),
 * {@code offload.streams.max}, per lane {@code offload.streams.lane.active} and
 * {@code offload.streams.lane.max} (tagged {@code priority}),
 * {@code offload.sessions.pending} (sessions whose end the completion thread awaits) and
 * {@code offload.healthy.devices} (1, or 0 once a sticky error failed the device, so that
 * its sum counts the healthy devices); counters {@code offload.streams.timeout},
 * {@code offload.streams.discarded}, {@code offload.sessions.timeouts} and, with an
 * enabled {@link LeakDetector}, {@code offload.sessions.leaked}. Each is tagged
 * {@code device} and {@code backend}. It also registers the timers that
 * {@link OffloadSessionMetrics} records, so that they show from the start.
 * <p>
 * {@code offload.streams.max} is {@code NaN} for an unbounded pool, so that a ratio such
 * as active / max gives no value rather than an infinite one.
 */
public final class OffloadPoolMetrics implements MeterBinder {

	private final DeviceRegistry registry;

	private final @Nullable LeakDetector leakDetector;

	/**
	 * Creates a binder.
	 * @param registry the devices whose pools to measure
	 * @param leakDetector the leak detector whose counts to publish, or {@code null}
	 */
	public OffloadPoolMetrics(DeviceRegistry registry, @Nullable LeakDetector leakDetector) {
		this.registry = registry;
		this.leakDetector = (leakDetector != null && leakDetector.isEnabled()) ? leakDetector : null;
	}

	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		for (Device device : this.registry.devices()) {
			bindTo(meterRegistry, device);
		}
	}

	private void bindTo(MeterRegistry meterRegistry, Device device) {
		StreamPool pool = device.streamPool();
		Tags tags = OffloadMeters.tags(device);
		gauge(meterRegistry, OffloadMeters.STREAMS, "Streams alive, idle or lent", OffloadMeters.UNIT_STREAMS, pool,
				(p) -> p.statistics().size(), tags);
		gauge(meterRegistry, OffloadMeters.STREAMS_ACTIVE, "Streams lent to sessions", OffloadMeters.UNIT_STREAMS, pool,
				StreamPool::inUse, tags);
		gauge(meterRegistry, OffloadMeters.STREAMS_IDLE, "Streams waiting in the pool", OffloadMeters.UNIT_STREAMS,
				pool, (p) -> p.statistics().idle(), tags);
		gauge(meterRegistry, OffloadMeters.STREAMS_PENDING, "Borrowers waiting for a stream",
				OffloadMeters.UNIT_THREADS, pool, StreamPool::waiting, tags);
		gauge(meterRegistry, OffloadMeters.STREAMS_MAX, "The pool's bound; NaN when unbounded",
				OffloadMeters.UNIT_STREAMS, pool, OffloadPoolMetrics::max, tags);
		gauge(meterRegistry, OffloadMeters.HEALTHY_DEVICES,
				"1 while the device can take work, 0 once a sticky error failed it", OffloadMeters.UNIT_DEVICES, device,
				(d) -> d.isHealthy() ? 1 : 0, tags);
		counter(meterRegistry, OffloadMeters.STREAMS_TIMEOUT, "Borrows that gave up after the borrow timeout",
				OffloadMeters.UNIT_BORROWS, pool, (p) -> p.statistics().timeouts(), tags);
		TimeGauge
			.builder(OffloadMeters.STREAMS_OLDEST_WAIT, pool, TimeUnit.NANOSECONDS, (p) -> p.oldestWait().toNanos())
			.description("How long the borrower that has waited longest has waited so far")
			.tags(tags)
			.register(meterRegistry);
		gauge(meterRegistry, OffloadMeters.SESSIONS_PENDING,
				"Sessions handed to the completion thread whose work is not done yet", OffloadMeters.UNIT_SESSIONS,
				pool, (p) -> p.statistics().pendingCompletions(), tags);
		counter(meterRegistry, OffloadMeters.SESSIONS_TIMEOUTS,
				"Sessions whose deadline passed while their caller waited for a stream or for their work",
				OffloadMeters.UNIT_SESSIONS, pool, (p) -> p.statistics().sessionTimeouts(), tags);
		counter(meterRegistry, OffloadMeters.STREAMS_DISCARDED, "Streams destroyed because their work failed",
				OffloadMeters.UNIT_STREAMS, pool, (p) -> p.statistics().discarded(), tags);
		if (this.leakDetector != null) {
			int id = device.id();
			counter(meterRegistry, OffloadMeters.SESSIONS_LEAKED,
					"Sessions open longer than the leak detection threshold", OffloadMeters.UNIT_SESSIONS,
					this.leakDetector, (detector) -> detector.leakedSessions(id), tags);
		}
		OffloadMeters.acquireTimer(meterRegistry, device);
		bindLanes(meterRegistry, pool, tags);
	}

	/**
	 * One pair of gauges per lane (a priority class with a limit), so that an autoscaler
	 * sees a lane that is full while the pool as a whole is not.
	 */
	private static void bindLanes(MeterRegistry meterRegistry, StreamPool pool, Tags tags) {
		for (StreamPriority priority : pool.config().lanes().keySet()) {
			Tags laneTags = tags.and("priority", priority.name().toLowerCase(Locale.ROOT));
			gauge(meterRegistry, OffloadMeters.STREAMS_LANE_ACTIVE, "Streams of the lane's priority class lent",
					OffloadMeters.UNIT_STREAMS, pool, (p) -> laneInUse(p, priority), laneTags);
			gauge(meterRegistry, OffloadMeters.STREAMS_LANE_MAX, "The lane's limit of sessions holding a stream",
					OffloadMeters.UNIT_STREAMS, pool, (p) -> laneMax(p, priority), laneTags);
		}
	}

	private static double laneInUse(StreamPool pool, StreamPriority priority) {
		StreamPoolStatistics.PriorityStatistics statistics = pool.statistics().byPriority().get(priority);
		return (statistics != null) ? statistics.inUse() : 0;
	}

	private static double laneMax(StreamPool pool, StreamPriority priority) {
		int max = pool.config().maxSessions(priority);
		return (max != Integer.MAX_VALUE) ? max : Double.NaN;
	}

	private static double max(StreamPool pool) {
		int max = pool.config().maxSize();
		return (max > 0) ? max : Double.NaN;
	}

	private static <T> void gauge(MeterRegistry registry, String name, String description, String unit, T state,
			ToDoubleFunction<T> value, Tags tags) {
		Gauge.builder(name, state, value).description(description).baseUnit(unit).tags(tags).register(registry);
	}

	private static <T> void counter(MeterRegistry registry, String name, String description, String unit, T state,
			ToDoubleFunction<T> value, Tags tags) {
		FunctionCounter.builder(name, state, value)
			.description(description)
			.baseUnit(unit)
			.tags(tags)
			.register(registry);
	}

}
