package dev.offload.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.health.GpuFault;

/**
 * {@link OffloadListener} that records the timer {@code offload.streams.acquire} (time to
 * borrow a stream), tagged {@code device} and {@code backend}, and the timer
 * {@code offload.library.calls} (each call of a stream library, such as a cuBLAS
 * operation: its count, and the time it took on the calling thread to open the stream's
 * handle the first time and enqueue the work), tagged {@code device}, {@code backend},
 * {@code library}, {@code op} and {@code outcome} ({@code success} or {@code failure}),
 * and the counter {@code offload.gpu.faults} (the faults the GPU reported through NVML),
 * tagged {@code device}, {@code backend} and {@code xid}, in every registry it is
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

	@Override
	public void libraryCalled(OffloadSession session, String library, String operation, long nanos,
			@Nullable Throwable failure) {
		for (Bound bound : this.registries) {
			bound.libraryTimer(session.device(), library, operation, failure == null)
				.record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void gpuFault(Device device, GpuFault fault) {
		for (Bound bound : this.registries) {
			Counter.builder(OffloadMeters.GPU_FAULTS)
				.description("Faults the GPU reported (Xid errors, through NVML)")
				.tags(OffloadMeters.tags(device))
				.tag("xid", String.valueOf(fault.xid()))
				.register(bound.registry)
				.increment();
		}
	}

	/** The tags of one library timer. */
	private record LibraryCall(Device device, String library, String operation, boolean success) {
	}

	/**
	 * One registry and the timers of each device in it, so that recording does not look
	 * meters up.
	 */
	private static final class Bound {

		private final MeterRegistry registry;

		private final Map<Device, Timer> byDevice = new ConcurrentHashMap<>();

		private final Map<LibraryCall, Timer> byLibraryCall = new ConcurrentHashMap<>();

		Bound(MeterRegistry registry) {
			this.registry = registry;
		}

		Timer timer(Device device) {
			return this.byDevice.computeIfAbsent(device, (key) -> OffloadMeters.acquireTimer(this.registry, key));
		}

		Timer libraryTimer(Device device, String library, String operation, boolean success) {
			return this.byLibraryCall.computeIfAbsent(new LibraryCall(device, library, operation, success),
					(key) -> Timer.builder(OffloadMeters.LIBRARY_CALLS)
						.description("Calls of a stream library (cuBLAS) and the time each took to enqueue")
						.tags(OffloadMeters.tags(device))
						.tag("library", library)
						.tag("op", operation)
						.tag("outcome", success ? "success" : "failure")
						.register(this.registry));
		}

	}

}
