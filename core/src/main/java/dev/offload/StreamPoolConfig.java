package dev.offload;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The immutable configuration of one {@link StreamPool}, checked when built.
 *
 * @param initialSize the streams created (lazily, on the first borrow) for a priority
 * class, at least 1
 * @param maxSize the most streams the pool holds in all, or 0 for no bound; else at least
 * {@code initialSize}
 * @param borrowTimeout how long a borrow waits for a stream of a full bounded pool;
 * positive
 * @param lanes limits per priority class (a lane): at most so many of the class's streams
 * are lent at once, so that one class cannot take every stream; a class without an entry
 * has no limit of its own
 */
public record StreamPoolConfig(int initialSize, int maxSize, Duration borrowTimeout, Map<StreamPriority, Lane> lanes) {

	/**
	 * The default initial size, as in the LLVM stream pool.
	 */
	public static final int DEFAULT_INITIAL_SIZE = 32;

	/**
	 * The default bound: 256 streams per device. Far more streams than the GPU has
	 * hardware queues only multiplex onto them, and an unbounded pool under thousands of
	 * concurrent callers (virtual threads above all) grows to thousands of streams whose
	 * polling and lending cost grows with them; a bounded pool makes callers wait for a
	 * stream instead.
	 */
	public static final int DEFAULT_MAX_SIZE = 256;

	/**
	 * The default borrow timeout.
	 */
	public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The defaults: 32 streams, at most 256, 30 seconds.
	 */
	public static final StreamPoolConfig DEFAULTS = new StreamPoolConfig(DEFAULT_INITIAL_SIZE, DEFAULT_MAX_SIZE,
			DEFAULT_BORROW_TIMEOUT);

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException naming the value and its bound
	 */
	public StreamPoolConfig {
		Objects.requireNonNull(borrowTimeout, "borrowTimeout must not be null");
		Objects.requireNonNull(lanes, "lanes must not be null");
		if (initialSize < 1) {
			throw new InvalidSettingException("initialSize", "initialSize must be at least 1, was " + initialSize);
		}
		if (maxSize < 0) {
			throw new InvalidSettingException("maxSize", "maxSize must be 0 (unbounded) or positive, was " + maxSize);
		}
		if (maxSize != 0 && maxSize < initialSize) {
			throw new InvalidSettingException("maxSize",
					"maxSize must be 0 (unbounded) or at least initialSize (" + initialSize + "), was " + maxSize);
		}
		if (borrowTimeout.isNegative() || borrowTimeout.isZero()) {
			throw new InvalidSettingException("borrowTimeout", "borrowTimeout must be positive, was " + borrowTimeout);
		}
		for (Map.Entry<StreamPriority, Lane> lane : lanes.entrySet()) {
			Objects.requireNonNull(lane.getValue(), "lanes." + lane.getKey() + " must not be null");
			if (maxSize != 0 && lane.getValue().maxSessions() > maxSize) {
				throw new InvalidSettingException("lanes." + lane.getKey() + ".maxSessions",
						"lanes." + lane.getKey() + ".maxSessions must be at most maxSize (" + maxSize + "), was "
								+ lane.getValue().maxSessions());
			}
		}
		lanes = lanes.isEmpty() ? Map.of() : Map.copyOf(lanes);
	}

	/**
	 * Creates a configuration without lanes.
	 * @param initialSize the streams created for a priority class on its first borrow, at
	 * least 1
	 * @param maxSize the most streams in all, or 0 for no bound
	 * @param borrowTimeout how long a borrow waits for a stream of a full pool; positive
	 * @throws IllegalArgumentException naming the value and its bound
	 */
	public StreamPoolConfig(int initialSize, int maxSize, Duration borrowTimeout) {
		this(initialSize, maxSize, borrowTimeout, Map.of());
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
		return new StreamPoolConfig(value, this.maxSize, this.borrowTimeout, this.lanes);
	}

	/**
	 * Returns a copy with another maximum size.
	 * @param value the maximum size, 0 for unbounded
	 * @return the new configuration
	 */
	public StreamPoolConfig withMaxSize(int value) {
		return new StreamPoolConfig(this.initialSize, value, this.borrowTimeout, this.lanes);
	}

	/**
	 * Returns a copy with another borrow timeout.
	 * @param value the timeout
	 * @return the new configuration
	 */
	public StreamPoolConfig withBorrowTimeout(Duration value) {
		return new StreamPoolConfig(this.initialSize, this.maxSize, value, this.lanes);
	}

	/**
	 * Returns a copy where at most {@code maxSessions} streams of {@code priority} are
	 * lent at once.
	 * @param priority the lane's priority class
	 * @param maxSessions the most sessions of the class that hold a stream at once, at
	 * least 1
	 * @param borrowTimeout how long a borrow of the class waits when the lane (or the
	 * pool) is full, or {@code null} for the pool's {@link #borrowTimeout()}
	 * @return the new configuration
	 * @throws IllegalArgumentException if a value is out of its bounds
	 */
	public StreamPoolConfig withLane(StreamPriority priority, int maxSessions, @Nullable Duration borrowTimeout) {
		Objects.requireNonNull(priority, "priority must not be null");
		Map<StreamPriority, Lane> changed = new EnumMap<>(StreamPriority.class);
		changed.putAll(this.lanes);
		try {
			changed.put(priority, new Lane(maxSessions, borrowTimeout));
		}
		catch (InvalidSettingException ex) {
			String setting = "lanes." + priority + "." + ex.getSetting();
			throw new InvalidSettingException(setting, "lanes." + priority + "." + ex.getMessage());
		}
		return new StreamPoolConfig(this.initialSize, this.maxSize, this.borrowTimeout, changed);
	}

	/**
	 * Returns the most streams of {@code priority} lent at once.
	 * @param priority the priority class
	 * @return the lane's limit, or {@link Integer#MAX_VALUE} if the class has no lane
	 */
	public int maxSessions(StreamPriority priority) {
		Lane lane = this.lanes.get(priority);
		return (lane != null) ? lane.maxSessions() : Integer.MAX_VALUE;
	}

	/**
	 * Returns how long a borrow of {@code priority} waits for a stream.
	 * @param priority the priority class
	 * @return the lane's borrow timeout if it has one, else the pool's
	 */
	public Duration borrowTimeout(StreamPriority priority) {
		Lane lane = this.lanes.get(priority);
		return (lane != null && lane.borrowTimeout() != null) ? lane.borrowTimeout() : this.borrowTimeout;
	}

	/**
	 * The limits of one priority class.
	 *
	 * @param maxSessions the most sessions of the class that hold a stream at once, at
	 * least 1
	 * @param borrowTimeout how long a borrow of the class waits when no stream of it can
	 * be lent, or {@code null} for the pool's borrow timeout
	 */
	public record Lane(int maxSessions, @Nullable Duration borrowTimeout) {

		/**
		 * Checks the values.
		 * @throws IllegalArgumentException naming the value and its bound
		 */
		public Lane {
			if (maxSessions < 1) {
				throw new InvalidSettingException("maxSessions", "maxSessions must be at least 1, was " + maxSessions);
			}
			if (borrowTimeout != null && (borrowTimeout.isNegative() || borrowTimeout.isZero())) {
				throw new InvalidSettingException("borrowTimeout",
						"borrowTimeout must be positive (or null for the pool's), was " + borrowTimeout);
			}
		}

	}

}
