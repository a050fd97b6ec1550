package dev.offload.internal.memory;

import java.util.concurrent.TimeUnit;

/**
 * The tuning of a device's memory, in one place: the sizes and periods that the buffer
 * cache, the page-locked staging arena and their per-thread magazines are built with.
 * None of them is a setting; {@code MemoryConfig} and the builder's
 * {@code bufferCacheMaxBytes} are what users choose. Not API.
 */
public final class MemoryTuning {

	/**
	 * The largest device block a buffer cache's magazine keeps: small buffers are where a
	 * cache hit's cost shows.
	 */
	public static final long DEVICE_MAGAZINE_MAX_BLOCK_BYTES = 256L * 1024;

	/** The largest page-locked block a staging arena's magazine keeps. */
	public static final long HOST_MAGAZINE_MAX_BLOCK_BYTES = 256L * 1024;

	/** Blocks per stripe's magazine, device and host alike. */
	public static final int MAGAZINE_SLOTS = 4;

	/** How often the memory thread looks for idle page-locked chunks. */
	public static final long STAGING_SWEEP_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(5);

	/**
	 * The sweeps a page-locked chunk must go unused before it is given back: with
	 * {@link #STAGING_SWEEP_PERIOD_NANOS}, 30 seconds.
	 */
	public static final int STAGING_IDLE_SWEEPS = 6;

	/** The staging arena's first chunk; each later one doubles, up to the largest. */
	public static final long STAGING_FIRST_CHUNK_BYTES = 4L * 1024 * 1024;

	/**
	 * The staging arena's largest chunk; a request over half of it gets a chunk of its
	 * own.
	 */
	public static final long STAGING_MAX_CHUNK_BYTES = 256L * 1024 * 1024;

	/**
	 * The closed buffers and events a session may hold for work not known done (calls
	 * that nothing waited for) before its next allocation waits for that work and gives
	 * them back.
	 */
	public static final int SESSION_CLOSED_MAX_COUNT = 4096;

	/**
	 * The page-locked bytes of closed host buffers a session may hold for work not known
	 * done before its next allocation waits for that work and gives them back: staging is
	 * not budgeted, so nothing else would bound it.
	 */
	public static final long SESSION_CLOSED_MAX_HOST_BYTES = 64L * 1024 * 1024;

	private MemoryTuning() {
	}

}
