package dev.offload;

import java.util.concurrent.atomic.AtomicLongArray;
import dev.offload.internal.ThreadStripes;

/**
 * Session ids, unique in the JVM without one counter that every session's opening writes:
 * each stripe of threads counts its own on a cache line of its own, and stripe {@code s}
 * hands out {@code s + 1}, {@code s + 1 + STRIPES}, {@code s + 1 + 2 * STRIPES} and so
 * on. Ids are positive and never repeat; they do not follow the order in which sessions
 * opened.
 */
final class SessionIds {

	private static final int STRIPES = 64;

	/** Longs between two counters. */
	private static final int STRIDE = ThreadStripes.SPACING_BYTES / Long.BYTES;

	private static final AtomicLongArray counters = new AtomicLongArray((STRIPES + 1) * STRIDE);

	private SessionIds() {
	}

	/**
	 * Returns a new id.
	 * @return an id no other call returned
	 */
	static long next() {
		int stripe = ThreadStripes.current(STRIPES);
		long count = counters.getAndIncrement((stripe + 1) * STRIDE);
		return count * STRIPES + stripe + 1;
	}

}
