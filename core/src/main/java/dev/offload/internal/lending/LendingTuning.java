package dev.offload.internal.lending;

import java.util.concurrent.TimeUnit;

/**
 * The tuning of the lending room, in one place: batch sizes, the grow-ahead mark and the
 * layout of the lent counter. None of them is a setting; {@code StreamPoolConfig} is what
 * users choose. Not API.
 */
public final class LendingTuning {

	/**
	 * The most items a borrower makes itself, and the size of the batches made in the
	 * background; also the items a class needs before growth begins ahead of demand.
	 */
	public static final int GROW_BATCH = 64;

	/**
	 * The grow-ahead mark: a borrow that leaves all but {@code 1/GROW_AHEAD_DIVISOR} of
	 * the items lent (three quarters) has the next doubling begin in the background.
	 */
	static final int GROW_AHEAD_DIVISOR = 4;

	/**
	 * The index of the lent counter in its array: 64 bytes of other elements on either
	 * side.
	 */
	static final int LENT_SLOT = 16;

	/** How often a shutdown looks again for lent items that came back. */
	static final long SHUTDOWN_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private LendingTuning() {
	}

}
