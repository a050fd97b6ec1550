package dev.offload.test;

import java.util.function.ToLongFunction;

import org.assertj.core.api.AbstractAssert;

import dev.offload.StreamPool;
import dev.offload.StreamPoolStatistics;

/**
 * Assertions on a {@link StreamPool}; each failure message shows the pool's statistics.
 */
public class StreamPoolAssert extends AbstractAssert<StreamPoolAssert, StreamPool> {

	StreamPoolAssert(StreamPool actual) {
		super(actual, StreamPoolAssert.class);
	}

	/**
	 * Verifies that the pool lends exactly {@code expected} streams.
	 * @param expected the streams in use
	 * @return this assertion
	 */
	public StreamPoolAssert hasInUse(int expected) {
		return hasCount("streams in use", expected, StreamPoolStatistics::inUse);
	}

	/**
	 * Verifies that exactly {@code expected} streams wait in the pool.
	 * @param expected the idle streams
	 * @return this assertion
	 */
	public StreamPoolAssert hasIdle(int expected) {
		return hasCount("idle streams", expected, StreamPoolStatistics::idle);
	}

	/**
	 * Verifies that exactly {@code expected} borrowers wait for a stream.
	 * @param expected the waiting borrowers
	 * @return this assertion
	 */
	public StreamPoolAssert hasWaiting(int expected) {
		return hasCount("waiting borrowers", expected, StreamPoolStatistics::waiting);
	}

	/**
	 * Verifies that exactly {@code expected} streams were destroyed because their work
	 * failed.
	 * @param expected the discarded streams
	 * @return this assertion
	 */
	public StreamPoolAssert hasDiscarded(long expected) {
		return hasCount("discarded streams", expected, StreamPoolStatistics::discarded);
	}

	/**
	 * Verifies that exactly {@code expected} borrows gave up after the borrow timeout.
	 * @param expected the timed-out borrows
	 * @return this assertion
	 */
	public StreamPoolAssert hasTimeouts(long expected) {
		return hasCount("borrow timeouts", expected, StreamPoolStatistics::timeouts);
	}

	/**
	 * Verifies that the pool lends no stream and nobody waits for one.
	 * @return this assertion
	 */
	public StreamPoolAssert hasNothingLent() {
		isNotNull();
		StreamPoolStatistics statistics = this.actual.statistics();
		if (statistics.inUse() != 0 || statistics.waiting() != 0) {
			failWithMessage("Expected device %d's stream pool to lend nothing but it has %d in use and %d waiting%n%s",
					statistics.deviceId(), statistics.inUse(), statistics.waiting(), statistics);
		}
		return this;
	}

	private StreamPoolAssert hasCount(String what, long expected, ToLongFunction<StreamPoolStatistics> count) {
		isNotNull();
		StreamPoolStatistics statistics = this.actual.statistics();
		long actualCount = count.applyAsLong(statistics);
		if (actualCount != expected) {
			failWithMessage("Expected device %d's stream pool to have %d %s but it has %d%n%s", statistics.deviceId(),
					expected, what, actualCount, statistics);
		}
		return this;
	}

}
