package dev.offload;

import java.time.Duration;
import java.util.Map;

/**
 * A snapshot of a {@link StreamPool}'s state and counters. Each value is read atomically,
 * the set of them is not.
 *
 * @param deviceId the pool's device
 * @param size streams alive ({@code created - destroyed})
 * @param inUse streams lent
 * @param idle streams waiting in the pool
 * @param peakInUse the most streams lent at once since the pool started, counted on every
 * borrow and release
 * @param maxSize the bound, or 0 if unbounded
 * @param waiting borrowers waiting for a stream
 * @param borrows streams lent since the start
 * @param grows times the pool grew (doubled) beyond its initial size
 * @param created streams created since the start
 * @param destroyed streams destroyed since the start
 * @param discarded streams destroyed because their work failed
 * @param timeouts borrows that gave up after the borrow timeout
 * @param sessionTimeouts sessions whose deadline passed while their caller waited for a
 * stream or for their work
 * @param pendingCompletions sessions handed to the device's completion thread
 * ({@code closeAsync}, timed out) whose work is not done yet
 * @param oldestWait how long the borrower that has waited longest has waited so far; zero
 * when nobody waits
 * @param byPriority size, in use and idle per priority class that has streams
 */
public record StreamPoolStatistics(int deviceId, int size, int inUse, int idle, int peakInUse, int maxSize, int waiting,
		long borrows, long grows, long created, long destroyed, long discarded, long timeouts, long sessionTimeouts,
		int pendingCompletions, Duration oldestWait, Map<StreamPriority, PriorityStatistics> byPriority) {

	/**
	 * Tells whether the pool has a bound.
	 * @return {@code true} if {@code maxSize > 0}
	 */
	public boolean isBounded() {
		return this.maxSize > 0;
	}

	/**
	 * The streams of one priority class.
	 *
	 * @param size streams alive
	 * @param inUse streams lent
	 * @param idle streams waiting in the pool
	 */
	public record PriorityStatistics(int size, int inUse, int idle) {

	}

}
