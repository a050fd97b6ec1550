package dev.offload;

import java.util.OptionalLong;

import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

/**
 * The device memory budget of each device: the most device memory that sessions and
 * application-owned buffers hold at once, as bytes or as a share of each device's total
 * memory. Validated when built; {@link #DEFAULTS} is 90% of each device. <pre>{@code
 * DeviceRegistry.builder(backend).memory(MemoryConfig.ofBytes(8L << 30)).build();
 * }</pre> A share is taken of the memory the process may use
 * ({@link DeviceInfo#usableMemoryBytes()}: the total, or less under MPS's pinned limit or
 * a declared time-slicing's share), and no budget exceeds MPS's pinned limit
 * ({@link #budgetOf(DeviceInfo)}).
 *
 * @param budgetBytes the budget in bytes, or 0 when it is a share or unlimited
 * @param budgetPercent the budget as a percentage (1..100) of each device's total memory,
 * or 0 when it is in bytes or unlimited
 */
public record MemoryConfig(long budgetBytes, int budgetPercent) {

	/**
	 * The default share of each device's total memory that sessions may hold.
	 */
	public static final int DEFAULT_BUDGET_PERCENT = 90;

	/**
	 * The MPS variable that caps a client's device memory, which a budget never exceeds.
	 */
	static final String MPS_PINNED_LIMIT = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";

	/**
	 * The defaults: a budget of {@value #DEFAULT_BUDGET_PERCENT}% of each device's
	 * memory.
	 */
	public static final MemoryConfig DEFAULTS = new MemoryConfig(0, DEFAULT_BUDGET_PERCENT);

	/**
	 * No budget: Offload accounts memory but never makes a session wait for it.
	 */
	public static final MemoryConfig UNLIMITED = new MemoryConfig(0, 0);

	/**
	 * Checks the values.
	 * @throws InvalidSettingException if a value is out of range, or both are given
	 */
	public MemoryConfig {
		if (budgetBytes < 0) {
			throw new InvalidSettingException("memory.budget",
					"memory.budget must be at least 1 byte, was " + budgetBytes);
		}
		if (budgetPercent < 0 || budgetPercent > 100) {
			throw new InvalidSettingException("memory.budget",
					"memory.budget must be a share from 1% to 100%, was " + budgetPercent + "%");
		}
		if (budgetBytes > 0 && budgetPercent > 0) {
			throw new InvalidSettingException("memory.budget", "memory.budget is either bytes or a share, was "
					+ budgetBytes + " bytes and " + budgetPercent + "%");
		}
	}

	/**
	 * Returns a budget in bytes, the same on every device.
	 * @param bytes the budget, at least 1
	 * @return the configuration
	 */
	public static MemoryConfig ofBytes(long bytes) {
		if (bytes < 1) {
			throw new InvalidSettingException("memory.budget", "memory.budget must be at least 1 byte, was " + bytes);
		}
		return new MemoryConfig(bytes, 0);
	}

	/**
	 * Returns a budget as a share of each device's total memory.
	 * @param percent the share, from 1 to 100
	 * @return the configuration
	 */
	public static MemoryConfig ofPercent(int percent) {
		if (percent < 1) {
			throw new InvalidSettingException("memory.budget",
					"memory.budget must be a share from 1% to 100%, was " + percent + "%");
		}
		return new MemoryConfig(0, percent);
	}

	/**
	 * Tells whether a budget is enforced.
	 * @return {@code false} for {@link #UNLIMITED}
	 */
	public boolean isLimited() {
		return this.budgetBytes > 0 || this.budgetPercent > 0;
	}

	/**
	 * Returns the budget of a device.
	 * @param totalBytes the device's total memory
	 * @return the budget in bytes; {@code Long.MAX_VALUE} when unlimited
	 */
	public long budgetFor(long totalBytes) {
		if (this.budgetBytes > 0) {
			return this.budgetBytes;
		}
		if (this.budgetPercent > 0) {
			return Math.max(1, totalBytes / 100 * this.budgetPercent + totalBytes % 100 * this.budgetPercent / 100);
		}
		return Long.MAX_VALUE;
	}

	/**
	 * Returns a device's budget and what set it: this configuration, taken of the memory
	 * the process may use, and never above the device memory MPS lets this client pin
	 * ({@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}), which fails allocations past it.
	 * @param info the device
	 * @return the budget in bytes ({@code Long.MAX_VALUE} when unlimited) and its source
	 */
	public DeviceBudget budgetOf(DeviceInfo info) {
		long usable = info.usableMemoryBytes();
		long configured = budgetFor(usable);
		String setting = describe(usable, info);
		OptionalLong pinned = info.sharing().memoryLimitBytes();
		if (pinned.isPresent() && pinned.getAsLong() < configured) {
			return new DeviceBudget(pinned.getAsLong(),
					MPS_PINNED_LIMIT + " (" + mebibytes(pinned.getAsLong()) + "), below " + setting);
		}
		return new DeviceBudget(configured, setting);
	}

	private String describe(long usable, DeviceInfo info) {
		if (this.budgetBytes > 0) {
			return "offload.memory.budget (" + mebibytes(this.budgetBytes) + ")";
		}
		if (this.budgetPercent == 0) {
			return "offload.memory.budget (unlimited)";
		}
		GpuSharing sharing = info.sharing();
		String of;
		if (usable == info.totalMemoryBytes()) {
			of = "the device's total";
		}
		else if (sharing.memoryLimitBytes().orElse(Long.MAX_VALUE) == usable) {
			of = "MPS's pinned limit, " + MPS_PINNED_LIMIT;
		}
		else {
			of = "the time-slicing share, GPU_SHARING_REPLICAS";
		}
		return "offload.memory.budget (" + this.budgetPercent + "% of " + mebibytes(usable) + " usable: " + of + ")";
	}

	private static String mebibytes(long bytes) {
		return (bytes >> 20) + " MiB";
	}

	/**
	 * A device's memory budget and what set it.
	 *
	 * @param bytes the budget in bytes; {@code Long.MAX_VALUE} when unlimited
	 * @param source what set it, for the startup log and the statistics: e.g.
	 * {@code "offload.memory.budget (90% of 81559 MiB usable: the device's total)"} or
	 * {@code "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (8192 MiB), below offload.memory.budget
	 * (16384 MiB)"}
	 */
	public record DeviceBudget(long bytes, String source) {

	}

}
