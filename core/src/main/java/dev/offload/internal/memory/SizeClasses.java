package dev.offload.internal.memory;

/**
 * The sizes buffers are rounded up to, so that a freed block serves later requests of
 * varying sizes: at least {@link #MIN_BYTES}, then four classes per power of two
 * ({@code 2^k * 1.25, 1.5, 1.75, 2}). A request is rounded up by less than a quarter of
 * itself: a block wastes at most 25% (on average about 12%).
 */
final class SizeClasses {

	static final long MIN_BYTES = 512;

	/**
	 * The largest request: 2^62 bytes (4 EiB), more than any device holds, and far below
	 * the sizes whose class would not fit in a {@code long}.
	 */
	static final long MAX_BYTES = 1L << 62;

	/** Classes up to 2^63: the minimum, then four per power of two from 2^9. */
	static final int COUNT = 1 + (63 - 9) * 4;

	private SizeClasses() {
	}

	/**
	 * Returns the class of a request.
	 * @param bytes the requested size, from 1 to {@link #MAX_BYTES}
	 * @return the smallest class that holds it
	 * @throws IllegalArgumentException if {@code bytes} is larger than {@link #MAX_BYTES}
	 */
	static long sizeClass(long bytes) {
		if (bytes > MAX_BYTES) {
			throw new IllegalArgumentException("bytes must be at most 2^62 (4 EiB), was " + bytes);
		}
		if (bytes <= MIN_BYTES) {
			return MIN_BYTES;
		}
		// A quarter of the power of two below: a shift, not a division, on the hot path.
		int shift = 61 - Long.numberOfLeadingZeros(bytes - 1);
		return (((bytes - 1) >>> shift) + 1) << shift;
	}

	/**
	 * Returns the index of a class, for per-class free lists.
	 * @param sizeClass a value of {@link #sizeClass(long)}
	 * @return the index, from 0 to {@link #COUNT} - 1
	 */
	static int index(long sizeClass) {
		if (sizeClass <= MIN_BYTES) {
			return 0;
		}
		int exponent = 63 - Long.numberOfLeadingZeros(sizeClass - 1);
		int quarters = (int) ((sizeClass - 1) >>> (exponent - 2));
		// quarters is 4..7 for the classes 1.25, 1.5, 1.75 and 2 times 2^exponent.
		return 1 + (exponent - 9) * 4 + (quarters - 4);
	}

}
