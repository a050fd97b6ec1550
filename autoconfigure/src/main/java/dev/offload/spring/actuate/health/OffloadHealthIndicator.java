package dev.offload.spring.actuate.health;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.health.GpuFault;
import dev.offload.spi.BackendSelection;

/**
 * {@link HealthIndicator} for the devices of a {@link DeviceRegistry}: {@code UP} while
 * every device can take work, {@code DOWN} once a sticky error failed one of them (the
 * details name the device and the error), and {@code OUT_OF_SERVICE} once the registry is
 * shut down. The details always name the backend, with a note when the {@code auto}
 * backend fell back to the host emulation, each device's GPU sharing mode
 * ({@code exclusive}, {@code mig}, {@code mps}, {@code time-slicing}) and its memory in
 * use, cached and budget, and whether NVML watches the GPU's own fault reports (or why
 * not). A device the GPU reported a fatal Xid of is {@code DOWN}, one with a lesser Xid
 * {@code DEGRADED} (the indicator stays {@code UP}: it still lends), each with the Xid's
 * number, time and meaning.
 */
public final class OffloadHealthIndicator implements HealthIndicator {

	/**
	 * The note added to the details when {@code offload.backend=auto} found no usable
	 * CUDA device.
	 */
	public static final String HOST_FALLBACK_NOTE = "no usable CUDA device; running on the host emulation";

	/**
	 * A device's status once the GPU reported a lesser fault of it: it still lends.
	 */
	public static final Status DEGRADED = new Status("DEGRADED", "the GPU reported a lesser fault (Xid)");

	private final DeviceRegistry registry;

	private final @Nullable String fallbackReason;

	/**
	 * Creates an indicator.
	 * @param registry the devices to check
	 * @param selection how the backend was chosen, or {@code null} if the application
	 * chose it itself
	 */
	public OffloadHealthIndicator(DeviceRegistry registry, @Nullable BackendSelection selection) {
		this.registry = registry;
		// The selection is the one decision; it applies when the registry runs the
		// backend it chose (an application's own backend was not selected).
		boolean hostFallback = selection != null && selection.fallback()
				&& registry.backend().name().equals(selection.backend());
		this.fallbackReason = (hostFallback && selection != null) ? selection.reason() : null;
	}

	@Override
	public Health health() {
		Health.Builder builder = Health.up().withDetail("backend", this.registry.backend().name());
		if (this.fallbackReason != null) {
			builder.withDetail("note", HOST_FALLBACK_NOTE).withDetail("reason", this.fallbackReason);
		}
		builder.withDetail("gpuFaults",
				(this.registry.isWatchingGpuFaults() ? "watched: " : "not watched: ") + this.registry.gpuFaultWatch());
		Map<String, Object> devices = new LinkedHashMap<>();
		for (Device device : this.registry.devices()) {
			devices.put(String.valueOf(device.id()), describe(device));
			if (!device.isHealthy()) {
				builder.down();
			}
		}
		if (this.registry.isClosed()) {
			builder.status(Status.OUT_OF_SERVICE);
		}
		return builder.withDetail("devices", devices).build();
	}

	private static Map<String, Object> describe(Device device) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("name", device.name());
		details.put("status", !device.isHealthy() ? Status.DOWN.getCode()
				: device.isDegraded() ? DEGRADED.getCode() : Status.UP.getCode());
		device.failure().ifPresent((failure) -> details.put("error", errorText(failure)));
		device.gpuFault().ifPresent((fault) -> details.put("gpuFault", describe(fault)));
		details.put("activeSessions", device.activeSessions());
		// How the GPU is shared decides what its pool and memory budget can hold (MIG:
		// a slice; MPS, time-slicing: other processes' work beside this one's).
		details.put("sharing", device.info().sharing().mode());
		details.put("memory", describe(device.memoryStatistics()));
		return details;
	}

	private static Map<String, Object> describe(GpuFault fault) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("xid", fault.xid());
		details.put("time", fault.time().toString());
		details.put("meaning", fault.meaning());
		details.put("fatal", fault.fatal());
		return details;
	}

	private static Map<String, Object> describe(MemoryStatistics memory) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("used", memory.usedBytes());
		details.put("cached", memory.cachedBytes());
		if (memory.isBudgeted()) {
			details.put("budget", memory.budgetBytes());
		}
		details.put("waiting", memory.waiting());
		return details;
	}

	private static String errorText(Throwable failure) {
		return (failure.getMessage() != null) ? failure.getMessage() : failure.getClass().getName();
	}

}
