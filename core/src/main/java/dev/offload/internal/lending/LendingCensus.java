package dev.offload.internal.lending;

import java.util.Arrays;

/**
 * The idle and lent items of each class of a {@link LendingPool}, counted by their
 * states, and the borrows so far.
 */
public final class LendingCensus {

	private final int[] idle;

	private final int[] inUse;

	private final long borrows;

	private final int peakInUse;

	LendingCensus(int[] idle, int[] inUse, long borrows, int peakInUse) {
		this.idle = idle;
		this.inUse = inUse;
		this.borrows = borrows;
		this.peakInUse = peakInUse;
	}

	/**
	 * Returns the idle items of a class.
	 * @param classIndex the class
	 * @return the number
	 */
	public int idle(int classIndex) {
		return this.idle[classIndex];
	}

	/**
	 * Returns the lent items of a class.
	 * @param classIndex the class
	 * @return the number
	 */
	public int inUse(int classIndex) {
		return this.inUse[classIndex];
	}

	/**
	 * Returns the idle items of all classes.
	 * @return the number
	 */
	public int idle() {
		return Arrays.stream(this.idle).sum();
	}

	/**
	 * Returns the lent items of all classes.
	 * @return the number
	 */
	public int inUse() {
		return Arrays.stream(this.inUse).sum();
	}

	/**
	 * Returns the borrows so far, of items alive or destroyed.
	 * @return the number
	 */
	public long borrows() {
		return this.borrows;
	}

	/**
	 * Returns the most items lent at once so far.
	 * @return the number
	 */
	public int peakInUse() {
		return this.peakInUse;
	}

}
