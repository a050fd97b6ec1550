package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.GpuSharing;

/**
 * Works out how a CUDA device is shared from what the process can see without
 * {@code nvidia-smi}: the device's name and UUID, the driver's
 * {@code CU_DEVICE_ATTRIBUTE_MPS_ENABLED}, and the environment the container runtime, the
 * device plugin or the deployment set.
 * <ul>
 * <li>MIG: CUDA names a MIG instance {@code "<GPU> MIG <profile>"} (e.g.
 * {@code "NVIDIA H100 80GB HBM3 MIG 1g.10gb"}), and the container toolkit and users
 * select instances with {@code MIG-} UUIDs in {@code NVIDIA_VISIBLE_DEVICES} or
 * {@code CUDA_VISIBLE_DEVICES}. The device's total memory is the instance's.</li>
 * <li>MPS: the driver says whether contexts are shared through MPS (attribute 133, CUDA
 * 12.4 and later); only where it cannot say, the {@code CUDA_MPS_*} variables stand for
 * it. Setting them does not make a process an MPS client (the daemon must be running), so
 * an attribute of 0 overrides them.</li>
 * <li>Time-slicing: invisible to the process; only {@code GPU_SHARING_STRATEGY} (and
 * {@code GPU_SHARING_REPLICAS}), set by the deployment, declares it.</li>
 * </ul>
 * Values that cannot be read fail with an {@link IllegalArgumentException} naming the
 * variable, because a memory limit read wrongly would size the memory budget wrongly.
 * <p>
 * Public only for Offload's other CUDA binding ({@code offload-backend-ffm}), which
 * describes devices the same way; not API.
 */
public final class GpuSharingDetection {

	/** {@code CU_DEVICE_ATTRIBUTE_MPS_ENABLED}, which JCuda 12.6 does not name. */
	public static final int ATTRIBUTE_MPS_ENABLED = 133;

	/** The attribute's value when the driver does not know it. */
	public static final int MPS_UNKNOWN = -1;

	static final String STRATEGY = "GPU_SHARING_STRATEGY";

	static final String REPLICAS = "GPU_SHARING_REPLICAS";

	static final String MPS_PIPE_DIRECTORY = "CUDA_MPS_PIPE_DIRECTORY";

	static final String MPS_ACTIVE_THREAD_PERCENTAGE = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";

	static final String MPS_PINNED_DEVICE_MEM_LIMIT = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";

	private static final List<String> VISIBLE_DEVICES = List.of("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES");

	private static final Pattern MIG_NAME = Pattern.compile("\\bMIG\\b(?:\\s+(\\S+))?");

	private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]?)(?:I?B)?",
			Pattern.CASE_INSENSITIVE);

	private GpuSharingDetection() {
	}

	/**
	 * Describes how a device is shared.
	 * @param ordinal the device's ordinal
	 * @param name the device's name as CUDA reports it
	 * @param uuid the device's UUID as {@code 8-4-4-4-12} hex digits, or {@code null}
	 * @param totalMemoryBytes the device's memory as CUDA reports it
	 * @param mpsEnabled {@code CU_DEVICE_ATTRIBUTE_MPS_ENABLED}: 1, 0, or
	 * {@link #MPS_UNKNOWN} when the driver does not know the attribute
	 * @param environment the process's environment
	 * @return the sharing
	 * @throws IllegalArgumentException if a sharing variable holds a value that cannot be
	 * read
	 */
	public static GpuSharing detect(int ordinal, String name, @Nullable String uuid, long totalMemoryBytes,
			int mpsEnabled, Map<String, String> environment) {
		List<String> evidence = new ArrayList<>();
		GpuSharing.Mig mig = mig(name, uuid, totalMemoryBytes, environment, evidence);
		String strategy = strategy(environment);
		String prefixedUuid = (uuid != null) ? ((mig != null) ? "MIG-" : "GPU-") + uuid : null;
		GpuSharing.Mps mps = mps(ordinal, prefixedUuid, mpsEnabled, strategy, environment, evidence);
		GpuSharing.TimeSlicing timeSlicing = null;
		if ("time-slicing".equals(strategy)) {
			timeSlicing = new GpuSharing.TimeSlicing(replicas(environment));
			evidence.add(STRATEGY + "=" + environment.get(STRATEGY) + " (declared by the deployment)");
		}
		if (mig == null && mps == null && timeSlicing == null && evidence.isEmpty()) {
			return GpuSharing.EXCLUSIVE;
		}
		return new GpuSharing(mig, mps, timeSlicing, evidence);
	}

	private static GpuSharing.@Nullable Mig mig(String name, @Nullable String uuid, long totalMemoryBytes,
			Map<String, String> environment, List<String> evidence) {
		Matcher named = MIG_NAME.matcher(name);
		String profile = null;
		if (named.find()) {
			profile = named.group(1);
			evidence.add("device name '" + name + "'");
		}
		else {
			String selected = null;
			for (String variable : VISIBLE_DEVICES) {
				String value = environment.get(variable);
				if (value != null && value.toUpperCase(Locale.ROOT).contains("MIG-")) {
					selected = variable + "=" + value;
					break;
				}
			}
			if (selected == null) {
				return null;
			}
			evidence.add(selected);
		}
		return new GpuSharing.Mig(profile, (uuid != null) ? "MIG-" + uuid : null, totalMemoryBytes);
	}

	private static @Nullable String strategy(Map<String, String> environment) {
		String value = environment.get(STRATEGY);
		if (value == null || value.isBlank()) {
			return null;
		}
		String strategy = value.trim().toLowerCase(Locale.ROOT);
		return switch (strategy) {
			case "none" -> null;
			case "time-slicing", "mps" -> strategy;
			default -> throw new IllegalArgumentException(
					STRATEGY + " must be one of none, time-slicing or mps (as GPU Feature Discovery's label "
							+ "nvidia.com/gpu.sharing-strategy), was '" + value + "'");
		};
	}

	private static @Nullable Integer replicas(Map<String, String> environment) {
		String value = environment.get(REPLICAS);
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			int replicas = Integer.parseInt(value.trim());
			if (replicas >= 1) {
				return replicas;
			}
		}
		catch (NumberFormatException ex) {
			// Reported below with the value.
		}
		throw new IllegalArgumentException(REPLICAS + " must be a whole number of at least 1, was '" + value + "'");
	}

	private static GpuSharing.@Nullable Mps mps(int ordinal, @Nullable String uuid, int mpsEnabled,
			@Nullable String strategy, Map<String, String> environment, List<String> evidence) {
		List<String> configured = new ArrayList<>();
		for (String variable : List.of(MPS_PIPE_DIRECTORY, MPS_ACTIVE_THREAD_PERCENTAGE, MPS_PINNED_DEVICE_MEM_LIMIT)) {
			if (environment.get(variable) != null) {
				configured.add(variable);
			}
		}
		if ("mps".equals(strategy)) {
			configured.add(STRATEGY + "=mps");
		}
		if (mpsEnabled == 0) {
			if (!configured.isEmpty()) {
				evidence.add(String.join(", ", configured)
						+ " set, but CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 0: no MPS daemon served this process");
			}
			return null;
		}
		if (mpsEnabled == 1) {
			evidence.add("CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 1");
		}
		else if (configured.isEmpty()) {
			return null;
		}
		else {
			evidence.add(String.join(", ", configured) + " set (the driver cannot confirm MPS: no "
					+ "CU_DEVICE_ATTRIBUTE_MPS_ENABLED before CUDA 12.4)");
		}
		return new GpuSharing.Mps(mpsEnabled == 1, activeThreadPercentage(environment),
				pinnedMemoryLimit(ordinal, uuid, environment));
	}

	private static @Nullable Integer activeThreadPercentage(Map<String, String> environment) {
		String value = environment.get(MPS_ACTIVE_THREAD_PERCENTAGE);
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			double percentage = Double.parseDouble(value.trim());
			if (percentage > 0 && percentage <= 100) {
				return (int) Math.ceil(percentage);
			}
		}
		catch (NumberFormatException ex) {
			// Reported below with the value.
		}
		throw new IllegalArgumentException(
				MPS_ACTIVE_THREAD_PERCENTAGE + " must be a percentage above 0 and at most 100, was '" + value + "'");
	}

	/**
	 * Reads this device's entry of {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}, a comma
	 * separated list of {@code <device>=<size>} where the device is an ordinal or a UUID
	 * (or its prefix) and the size has a unit ({@code 512M}, {@code 2G}, {@code 2GB}).
	 */
	static @Nullable Long pinnedMemoryLimit(int ordinal, @Nullable String uuid, Map<String, String> environment) {
		String value = environment.get(MPS_PINNED_DEVICE_MEM_LIMIT);
		if (value == null || value.isBlank()) {
			return null;
		}
		Long limit = null;
		for (String entry : value.split(",")) {
			int equals = entry.indexOf('=');
			if (equals < 1) {
				throw pinnedLimitError(value, "entry '" + entry.trim() + "' is not <device>=<size>");
			}
			String device = entry.substring(0, equals).trim();
			long bytes = bytes(value, entry.substring(equals + 1).trim());
			boolean thisDevice = device.equals(String.valueOf(ordinal))
					|| (uuid != null && uuid.toLowerCase(Locale.ROOT).startsWith(device.toLowerCase(Locale.ROOT)));
			if (thisDevice) {
				limit = bytes;
			}
		}
		return limit;
	}

	private static long bytes(String value, String size) {
		Matcher matcher = SIZE.matcher(size);
		if (!matcher.matches()) {
			throw pinnedLimitError(value, "size '" + size + "' is not a number with a unit such as 512M or 2G");
		}
		int shift = switch (matcher.group(2).toUpperCase(Locale.ROOT)) {
			case "K" -> 10;
			case "M" -> 20;
			case "G" -> 30;
			case "T" -> 40;
			default -> 0;
		};
		return (long) (Double.parseDouble(matcher.group(1)) * (1L << shift));
	}

	private static IllegalArgumentException pinnedLimitError(String value, String problem) {
		return new IllegalArgumentException(MPS_PINNED_DEVICE_MEM_LIMIT + " must list <device>=<size> entries such as "
				+ "'0=2G,1=512M', was '" + value + "': " + problem);
	}

}
