package dev.offload.internal.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

/**
 * The GPU's fault reports from NVML: an event set with each device's critical Xid,
 * double-bit ECC and (where supported) DRAM retirement events, the devices found by their
 * UUIDs. Shared with the FFM binding (offload-backend-ffm).
 */
public final class NvmlGpuFaultSource implements GpuFaultSource {

	private static final String JNA_CLASS_NAME = "com.sun.jna.Native";

	private final Nvml nvml;

	private final long eventSet;

	/** The registry's device ids by NVML device handle. */
	private final Map<Long, Integer> deviceIds;

	private final String description;

	private NvmlGpuFaultSource(Nvml nvml, long eventSet, Map<Long, Integer> deviceIds, String description) {
		this.nvml = nvml;
		this.eventSet = eventSet;
		this.deviceIds = deviceIds;
		this.description = description;
	}

	/**
	 * Opens NVML ({@code libnvidia-ml.so.1}, through JNA) and registers the devices'
	 * fault events.
	 * @param devices the registry's devices
	 * @return the source
	 * @throws UnsupportedOperationException saying why NVML cannot watch them: JNA or the
	 * library missing, NVML not starting, no device found
	 */
	public static GpuFaultSource open(List<BackendDevice> devices) {
		try {
			Class.forName(JNA_CLASS_NAME, false, NvmlGpuFaultSource.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new UnsupportedOperationException(
					"JNA (net.java.dev.jna:jna), which loads " + Nvml.SONAME + ", is not on the classpath");
		}
		Nvml nvml;
		try {
			nvml = JnaNvml.load();
		}
		catch (UnsatisfiedLinkError ex) {
			throw new UnsupportedOperationException(Nvml.SONAME + " could not be loaded: " + firstLine(ex));
		}
		return open(nvml, devices);
	}

	/**
	 * Opens the source over an NVML binding.
	 */
	static GpuFaultSource open(Nvml nvml, List<BackendDevice> devices) {
		int result = nvml.init();
		if (result != Nvml.SUCCESS) {
			throw new UnsupportedOperationException("nvmlInit_v2 failed: " + nvml.errorString(result));
		}
		long[] out = new long[1];
		result = nvml.eventSetCreate(out);
		if (result != Nvml.SUCCESS) {
			nvml.shutdown();
			throw new UnsupportedOperationException("nvmlEventSetCreate failed: " + nvml.errorString(result));
		}
		long set = out[0];
		Map<Long, Integer> deviceIds = new HashMap<>();
		List<Integer> watched = new ArrayList<>();
		List<String> unwatched = new ArrayList<>();
		for (BackendDevice device : devices) {
			String problem = register(nvml, set, device, deviceIds);
			if (problem == null) {
				watched.add(device.deviceId());
			}
			else {
				unwatched.add("device " + device.deviceId() + " " + problem);
			}
		}
		if (watched.isEmpty()) {
			nvml.eventSetFree(set);
			nvml.shutdown();
			throw new UnsupportedOperationException(
					"NVML watches none of the devices: " + String.join("; ", unwatched));
		}
		String description = "NVML (driver " + nvml.driverVersion() + ") watches devices " + watched + " for Xid errors"
				+ (unwatched.isEmpty() ? "" : "; not " + String.join("; ", unwatched));
		return new NvmlGpuFaultSource(nvml, set, deviceIds, description);
	}

	/**
	 * Finds the device in NVML and registers its events.
	 * @return why it could not, or {@code null}
	 */
	private static @Nullable String register(Nvml nvml, long set, BackendDevice device, Map<Long, Integer> deviceIds) {
		String uuid = device.uuid().orElse(null);
		if (uuid == null) {
			return "has no UUID to find it by";
		}
		long[] out = new long[1];
		int result = nvml.deviceByUuid("GPU-" + uuid, out);
		if (result != Nvml.SUCCESS) {
			// A MIG instance has its own UUID; its faults are the parent GPU's.
			return "(GPU-" + uuid + ") is not in NVML: " + nvml.errorString(result);
		}
		long handle = out[0];
		long types = Nvml.WATCHED;
		if (nvml.supportedEventTypes(handle, out) == Nvml.SUCCESS) {
			types &= out[0];
		}
		if ((types & Nvml.EVENT_XID_CRITICAL) == 0) {
			return "reports no Xid events";
		}
		result = nvml.registerEvents(handle, types, set);
		if (result != Nvml.SUCCESS) {
			return "refused its events: " + nvml.errorString(result);
		}
		deviceIds.put(handle, device.deviceId());
		return null;
	}

	@Override
	public @Nullable Report next(Duration timeout) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		long[] event = new long[3];
		int result = this.nvml.eventSetWait(this.eventSet, event, timeoutMs);
		if (result == Nvml.ERROR_TIMEOUT) {
			return null;
		}
		if (result != Nvml.SUCCESS) {
			// Whatever it is (a GPU lost, an interrupted wait), not a spin: wait the
			// timeout out, then ask again.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(timeoutMs));
			return null;
		}
		Integer deviceId = this.deviceIds.get(event[0]);
		if (deviceId == null) {
			return null;
		}
		int xid = xid(event[1], event[2]);
		return (xid >= 0) ? new Report(deviceId, xid, Instant.now()) : null;
	}

	/**
	 * The Xid an event stands for: its data for a critical Xid, and the driver's Xid for
	 * the other events.
	 * @return the Xid, or -1 for an event not watched
	 */
	static int xid(long eventType, long eventData) {
		if ((eventType & Nvml.EVENT_XID_CRITICAL) != 0) {
			return (int) eventData;
		}
		if ((eventType & Nvml.EVENT_DOUBLE_BIT_ECC) != 0) {
			return 48;
		}
		if ((eventType & Nvml.EVENT_DRAM_RETIREMENT_FAILURE) != 0) {
			return 64;
		}
		if ((eventType & Nvml.EVENT_DRAM_RETIREMENT) != 0) {
			return 63;
		}
		return -1;
	}

	@Override
	public String description() {
		return this.description;
	}

	@Override
	public void close() {
		this.nvml.eventSetFree(this.eventSet);
		this.nvml.shutdown();
	}

	private static String firstLine(Throwable error) {
		String message = String.valueOf(error.getMessage());
		// The loader's own reason ("cannot open shared object file"), without JNA's
		// preamble.
		return message.lines()
			.map(String::strip)
			.filter((line) -> !line.isEmpty() && !line.startsWith("Unable to load library")
					&& !line.startsWith("Native library ("))
			.findFirst()
			.orElse(message.strip());
	}

}
