package dev.offload.internal;

/**
 * Stripes of threads, for state that every thread would otherwise write on one cache
 * line: a thread writes its stripe's, chosen by a hash of its id, so that virtual threads
 * share the stripes too and nothing grows with the number of threads.
 */
public final class ThreadStripes {

	/**
	 * The bytes between two stripes' state: a cache line and the line that adjacent-line
	 * prefetch fetches with it, so that two stripes never pass a line between them.
	 */
	public static final int SPACING_BYTES = 128;

	private ThreadStripes() {
	}

	/**
	 * Returns the number of stripes for a number of processors: four times as many,
	 * rounded up to a power of two, at most 64, so that threads seldom share one: as many
	 * threads as processors started one after another (consecutive ids, as a pool starts
	 * its workers) each get a stripe of their own; threads whose ids fall at random share
	 * one now and then (two of 16 on one of 64 about twice).
	 * @param processors the processors available
	 * @return a power of two from 4 to 64
	 */
	public static int stripes(int processors) {
		int wanted = Math.min(64, Math.max(1, processors * 4));
		return Integer.highestOneBit(wanted - 1) << 1;
	}

	/**
	 * Returns the stripe of a thread: the top bits of its id times the golden ratio
	 * (Fibonacci hashing), which spread consecutive ids evenly, where lower bits of the
	 * product do not (8 consecutive ids on 32 stripes shared some).
	 * @param threadId the thread's id
	 * @param stripes a power of two
	 * @return the stripe, from 0 to {@code stripes - 1}
	 */
	public static int stripe(long threadId, int stripes) {
		if (stripes == 1) {
			return 0;
		}
		return (int) ((threadId * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - Integer.numberOfTrailingZeros(stripes)));
	}

	/**
	 * Returns the calling thread's stripe.
	 * @param stripes a power of two
	 * @return the stripe, from 0 to {@code stripes - 1}
	 */
	public static int current(int stripes) {
		return stripe(Thread.currentThread().getId(), stripes);
	}

}
