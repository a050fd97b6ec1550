package dev.offload.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The point in time by which a session's caller stops waiting: its opening plus its
 * timeout.
 */
public final class SessionDeadline {

	private final Duration timeout;

	private final long deadlineNanos;

	public SessionDeadline(Duration timeout) {
		this.timeout = timeout;
		this.deadlineNanos = System.nanoTime() + timeout.toNanos();
	}

	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Returns when the deadline passes.
	 * @return the time on {@link System#nanoTime()}'s clock
	 */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Returns the time left, at most 0 once the deadline passed.
	 */
	public long remainingNanos() {
		return this.deadlineNanos - System.nanoTime();
	}

	public static @Nullable Duration checked(@Nullable Duration timeout, String name) {
		if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
			throw new IllegalArgumentException(name + " must be positive (or null for none), was " + timeout);
		}
		return timeout;
	}

}
