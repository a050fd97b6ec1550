package dev.offload;

import java.time.Duration;
import java.util.Objects;

/**
 * The immutable configuration of one {@link StreamPool}, checked when built.
 *
 * @param initialSize the streams created (lazily, on the first borrow) for a priority class, at least 1
 * @param maxSize the most streams the pool holds in all, or 0 for no bound; else at least {@code initialSize}
 * @param borrowTimeout how long a borrow waits for a stream of a full bounded pool; positive
 */
public record StreamPoolConfig(int initialSize, int maxSize, Duration borrowTimeout) {

	/**
	 * The default initial size, as in the LLVM stream pool.
	 */
	public static final int DEFAULT_INITIAL_SIZE = 32;

	/**
	 * The default borrow timeout.
	 */
	public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The defaults: 32 streams, unbounded, 30 seconds.
	 */
	public static final StreamPoolConfig DEFAULTS = new StreamPoolConfig(DEFAULT_INITIAL_SIZE, 0,
			DEFAULT_BORROW_TIMEOUT);

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException naming the value and its bound
	 */
	public StreamPoolConfig {
		Objects.requireNonNull(borrowTimeout, "borrowTimeout must not be null");
		if (initialSize < 1) {
			throw new InvalidSettingException("initialSize", "initialSize must be at least 1, was " + initialSize);
		}
		if (maxSize < 0) {
			throw new InvalidSettingException("maxSize", "maxSize must be 0 (unbounded) or positive, was " + maxSize);
		}
		if (maxSize != 0 && maxSize < initialSize) {
			throw new InvalidSettingException("maxSize", "maxSize must be 0 (unbounded) or at least initialSize ("
					+ initialSize + "), was " + maxSize);
		}
		if (borrowTimeout.isNegative() || borrowTimeout.isZero()) {
			throw new InvalidSettingException("borrowTimeout", "borrowTimeout must be positive, was " + borrowTimeout);
		}
	}

	/**
	 * Tells whether the pool has an upper bound.
	 * @return {@code true} if {@code maxSize > 0}
	 */
	public boolean isBounded() {
		return this.maxSize > 0;
	}

	/**
	 * Returns a copy with another initial size.
	 * @param value the initial size
	 * @return the new configuration
	 */
	public StreamPoolConfig withInitialSize(int value) {
		return new StreamPoolConfig(value, this.maxSize, this.borrowTimeout);
	}

	/**
	 * Returns a copy with another maximum size.
	 * @param value the maximum size, 0 for unbounded
	 * @return the new configuration
	 */
	public StreamPoolConfig withMaxSize(int value) {
		return new StreamPoolConfig(this.initialSize, value, this.borrowTimeout);
	}

	/**
	 * Returns a copy with another borrow timeout.
	 * @param value the timeout
	 * @return the new configuration
	 */
	public StreamPoolConfig withBorrowTimeout(Duration value) {
		return new StreamPoolConfig(this.initialSize, this.maxSize, value);
	}

}
