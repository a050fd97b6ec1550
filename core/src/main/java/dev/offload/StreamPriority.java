package dev.offload;

/**
 * The priority classes of a {@link StreamPool}. Each class has its own idle streams; CUDA
 * schedules blocks of {@link #HIGH} streams before those of {@link #NORMAL} ones.
 */
public enum StreamPriority {

	/**
	 * The device's lowest-precedence priority (CUDA's default).
	 */
	NORMAL,

	/**
	 * The device's highest-precedence priority (on an H200, -5).
	 */
	HIGH

}
