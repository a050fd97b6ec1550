package dev.offload.kernel;

import org.jspecify.annotations.Nullable;

/**
 * The grid and block sizes and the dynamic shared memory of a kernel launch.
 *
 * @param gridX blocks in x, at least 1
 * @param gridY blocks in y, at least 1
 * @param gridZ blocks in z, at least 1
 * @param blockX threads per block in x, at least 1
 * @param blockY threads per block in y, at least 1
 * @param blockZ threads per block in z, at least 1
 * @param sharedMemoryBytes dynamic shared memory per block, at least 0
 */
public record LaunchConfig(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, int sharedMemoryBytes) {

	/**
	 * Checks the sizes.
	 * @throws IllegalArgumentException if a size is out of range
	 */
	public LaunchConfig {
		positive("gridX", gridX);
		positive("gridY", gridY);
		positive("gridZ", gridZ);
		positive("blockX", blockX);
		positive("blockY", blockY);
		positive("blockZ", blockZ);
		if ((long) blockX * blockY * blockZ > 1024) {
			throw new IllegalArgumentException(
					"A block has at most 1024 threads, was " + blockX + "x" + blockY + "x" + blockZ);
		}
		if (sharedMemoryBytes < 0) {
			throw new IllegalArgumentException("sharedMemoryBytes must be at least 0, was " + sharedMemoryBytes);
		}
	}

	private static void positive(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(name + " must be at least 1, was " + value);
		}
	}

	/**
	 * Returns a one-dimensional launch of {@code grid} blocks of {@code block} threads.
	 * @param grid blocks
	 * @param block threads per block
	 * @return the configuration
	 */
	public static LaunchConfig of(int grid, int block) {
		if (grid == 1 && block >= 1 && block <= OneBlock.CONFIGS.length - 1) {
			// A light request's usual geometry: made once per block size. A record's
			// final fields make sharing it across threads safe.
			LaunchConfig config = OneBlock.CONFIGS[block];
			if (config == null) {
				config = new LaunchConfig(1, 1, 1, block, 1, 1, 0);
				OneBlock.CONFIGS[block] = config;
			}
			return config;
		}
		return new LaunchConfig(grid, 1, 1, block, 1, 1, 0);
	}

	/**
	 * Returns a one-dimensional launch with at least {@code threads} threads in blocks of
	 * {@code block}.
	 * @param threads the number of threads wanted, at least 1
	 * @param block threads per block
	 * @return the configuration, with {@code ceil(threads / block)} blocks
	 */
	public static LaunchConfig forThreads(long threads, int block) {
		if (threads < 1) {
			throw new IllegalArgumentException("threads must be at least 1, was " + threads);
		}
		positive("block", block);
		long grid = (threads - 1) / block + 1;
		if (grid > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("threads " + threads + " need more than 2^31-1 blocks of " + block);
		}
		return of((int) grid, block);
	}

	/**
	 * Returns this configuration with {@code bytes} of dynamic shared memory.
	 * @param bytes shared memory per block
	 * @return a new configuration
	 */
	public LaunchConfig withSharedMemory(int bytes) {
		return new LaunchConfig(this.gridX, this.gridY, this.gridZ, this.blockX, this.blockY, this.blockZ, bytes);
	}

	/**
	 * Returns the total number of threads.
	 * @return grid times block sizes
	 */
	public long totalThreads() {
		return (long) this.gridX * this.gridY * this.gridZ * this.blockX * this.blockY * this.blockZ;
	}

	/** The one-block launches {@link #of(int, int)} has made, by block size. */
	private static final class OneBlock {

		static final @Nullable LaunchConfig[] CONFIGS = new LaunchConfig[1025];

	}

}
