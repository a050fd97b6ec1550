package dev.offload;

/**
 * The device memory budget of each device: the most device memory that sessions and
 * application-owned buffers hold at once, as bytes or as a share of each device's total
 * memory. Validated when built; {@link #DEFAULTS} is 90% of each device. <pre>{@code
 * DeviceRegistry.builder(backend).memory(MemoryConfig.ofBytes(8L << 30)).build();
 * }</pre>
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

}
