package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.lending.LendingCensus;
import dev.offload.internal.lending.LendingItems;
import dev.offload.internal.lending.LendingPool;
import dev.offload.internal.lending.LendingTenant;
import dev.offload.internal.lending.LendingTuning;
import dev.offload.internal.SessionDeadline;
import dev.offload.spi.BackendStream;

/**
 * The streams of one {@link Device}, each lent to one {@link OffloadSession} at a time
 * and taken back after that session's work is done, so that a synchronize waits only for
 * its own work.
 * <p>
 * How it evolves: nothing is created until the first borrow of a priority class, which
 * creates {@link StreamPoolConfig#initialSize()} streams of that class. When a class has
 * no idle stream, the pool first replaces streams it discarded, then doubles the class,
 * up to {@link StreamPoolConfig#maxSize()} streams in all. Growth stays off the
 * borrowers' path where it can: a borrower that finds no stream creates at most
 * {@value #GROW_BATCH} itself and the completion executor creates the rest of the
 * doubling in batches of that size, handing each batch to the waiters; and once
 * {@value #GROW_BATCH} or more streams exist, a borrow that leaves three quarters of them
 * lent has the next doubling begin there, ahead of the burst. The bound is shared by the
 * classes: when a bounded pool is full, a borrow that finds no idle stream of its class
 * destroys an idle stream of the other class and creates one of its own, so no borrow
 * waits while a stream is idle. A borrow from a full bounded pool with no idle stream at
 * all waits up to {@link StreamPoolConfig#borrowTimeout()} and then throws
 * {@link StreamBorrowTimeoutException}.
 * <p>
 * How it lends (the shape of HikariCP's {@code ConcurrentBag}): every stream is in its
 * class's shared list, and its state ({@code IDLE}, {@code IN_USE}, {@code DISCARDED})
 * changes only by compare-and-set, so a stream is never lent twice. A thread first tries
 * the stream it released last (no contention, warm caches), then pops the class's idle
 * hints, a lock-free stack with a hint for every idle stream. One shared counter changes
 * on the fast path, the streams lent now (on a cache line of its own), so that the peak
 * in use is exact; each stream counts its own borrows, and idle and lent streams are
 * counted from their states when asked. The lock serves growth, waiting and shutdown
 * only; a release takes it only when a borrower waits.
 * <p>
 * How it waits: a borrower that finds no stream and cannot grow the pool (or whose tenant
 * holds its {@code maxStreams}) queues in its class's queue of waiters, served by
 * weighted fair queuing across tenants ({@link TenantPolicy}) and first come, first
 * served within a tenant. A release while borrowers wait hands the stream to the next
 * waiter of its class and wakes that one alone (it gets the stream even if a new borrower
 * looks meanwhile); with no waiter of its class, it wakes the oldest waiter of the other
 * class, which may replace an idle stream by one of its own. A discard wakes one waiter
 * to replace the stream. So each stream given back wakes one waiter, not all of them, and
 * waiters of a class are served in their order of arrival.
 * <p>
 * Invariants: a stream in the pool has no pending work (sessions synchronize before they
 * release); a stream whose work failed is {@linkplain #discard destroyed}, never lent
 * again; {@code created - destroyed == idle + inUse}.
 * <p>
 * The lending itself (states, waiters, growth) is a {@link LendingPool} of
 * {@link PooledStream}s, one class per {@link StreamPriority}; this class gives it the
 * device's streams, health and completion executor, and turns its counts into
 * {@link StreamPoolStatistics} and listener events.
 * <p>
 * What an application can call is read-only (counts, statistics, configuration): sessions
 * borrow and release, and the {@link DeviceRegistry} owns the pool's lifecycle (it shuts
 * the pool down when it closes).
 */
public final class StreamPool {

	private static final Logger logger = LoggerFactory.getLogger(StreamPool.class);

	private static final StreamPriority[] PRIORITIES = StreamPriority.values();

	/**
	 * The most streams a borrower creates itself, and the size of the batches created in
	 * the background.
	 */
	static final int GROW_BATCH = LendingTuning.GROW_BATCH;

	private final Device device;

	private final StreamPoolConfig config;

	private final LendingPool<PooledStream> lending;

	private final AtomicInteger nextId = new AtomicInteger();

	private final AtomicLong sessionTimeouts = new AtomicLong();

	private final TenantShares tenants;

	StreamPool(Device device, StreamPoolConfig config, TenantShares tenants) {
		this.device = device;
		this.config = config;
		this.tenants = tenants;
		int[] limits = new int[PRIORITIES.length];
		long[] borrowTimeouts = new long[PRIORITIES.length];
		for (StreamPriority priority : PRIORITIES) {
			limits[priority.ordinal()] = config.maxSessions(priority);
			borrowTimeouts[priority.ordinal()] = config.borrowTimeout(priority).toNanos();
		}
		this.lending = new LendingPool<>(new Streams(), config.initialSize(), config.maxSize(), limits, borrowTimeouts,
				logger, "device " + device.id());
	}

	/**
	 * Returns how long a borrower of {@code priority} waits at most (its lane's borrow
	 * timeout, or the pool's); a session's wait for memory has the same bound.
	 */
	long borrowTimeoutNanos(StreamPriority priority) {
		return this.lending.borrowTimeoutNanos(priority.ordinal());
	}

	/**
	 * Returns the pool's device.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Returns the pool's configuration.
	 * @return the configuration, fixed for the pool's life
	 */
	public StreamPoolConfig config() {
		return this.config;
	}

	/**
	 * Tells whether the pool is shut down.
	 * @return {@code true} once {@link #shutdown(Duration)} began
	 */
	public boolean isClosed() {
		return this.lending.isClosed();
	}

	/**
	 * Returns the streams lent now.
	 * @return the number in use
	 */
	public int inUse() {
		return this.lending.inUse();
	}

	/**
	 * Returns the borrowers waiting now.
	 * @return the number waiting
	 */
	public int waiting() {
		return this.lending.waiting();
	}

	/**
	 * Tells whether the pool is saturated: a borrower waits because every stream it may
	 * be lent (within the pool's bound and its lane's limit) is lent. Readiness checks
	 * can report such a device as busy.
	 * @return {@code true} while at least one borrower waits
	 */
	public boolean isSaturated() {
		return this.lending.waiting() > 0;
	}

	/**
	 * Returns how long the borrower that has waited longest has waited so far.
	 * @return the time, {@link Duration#ZERO} when nobody waits
	 */
	public Duration oldestWait() {
		return Duration.ofNanos(this.lending.oldestWaitNanos());
	}

	/**
	 * Counts a session whose deadline passed while its caller waited.
	 */
	void sessionTimedOut() {
		this.sessionTimeouts.incrementAndGet();
	}

	/**
	 * Takes a snapshot of the pool's state and counters. The idle streams are counted by
	 * their state, independently of the counters.
	 * @return the statistics
	 */
	public StreamPoolStatistics statistics() {
		LendingCensus census = this.lending.census();
		Map<StreamPriority, StreamPoolStatistics.PriorityStatistics> byPriority = new EnumMap<>(StreamPriority.class);
		for (StreamPriority priority : PRIORITIES) {
			int classIdle = census.idle(priority.ordinal());
			int classInUse = census.inUse(priority.ordinal());
			if (classIdle + classInUse > 0) {
				byPriority.put(priority,
						new StreamPoolStatistics.PriorityStatistics(classIdle + classInUse, classInUse, classIdle));
			}
		}
		long created = this.lending.created();
		long destroyed = this.lending.destroyed();
		return new StreamPoolStatistics(this.device.id(), (int) (created - destroyed), census.inUse(), census.idle(),
				census.peakInUse(), this.config.maxSize(), this.lending.waiting(), census.borrows(),
				this.lending.grows(), created, destroyed, this.lending.discarded(), this.lending.timeouts(),
				this.sessionTimeouts.get(), this.device.completions().pending(), oldestWait(), Map.copyOf(byPriority));
	}

	/**
	 * Lends a stream of {@code priority} exclusively to the caller, creating or waiting
	 * as the configuration says. Sessions call this on their first operation; give the
	 * stream back with {@link #release} or {@link #discard}.
	 * @param priority the priority class
	 * @return the stream, with no pending work
	 * @throws StreamBorrowTimeoutException if a bounded pool stayed full for the borrow
	 * timeout
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the pool is shut down
	 */
	PooledStream borrow(StreamPriority priority) {
		return borrow(priority, null, 0, this.tenants.of(null));
	}

	/**
	 * Returns each tenant's use of the pool: streams held, borrowers waiting, borrows and
	 * their waits. While a bounded pool is full, its waiters are served by weighted fair
	 * queuing across tenants ({@link TenantPolicy}).
	 * @return the statistics, by tenant name; tenants past the policy's tracked bound
	 * together as {@link TenantPolicy#OTHER_TENANTS}
	 */
	public List<TenantStatistics> tenantStatistics() {
		return this.tenants.statistics();
	}

	/**
	 * Returns one tenant's row of {@link #tenantStatistics()}, without building the
	 * others': what a meter per tenant reads.
	 * @param tenant a tenant's name, or {@link TenantPolicy#OTHER_TENANTS} for the
	 * tenants past the tracked bound together
	 * @return the tenant's statistics, or {@code null} if the list has no row of that
	 * name
	 */
	public @Nullable TenantStatistics tenantStatistics(String tenant) {
		if (tenant == null) {
			throw new IllegalArgumentException("tenant must not be null");
		}
		return this.tenants.statistics(tenant);
	}

	/**
	 * Lends a stream of {@code priority}, waiting no longer than a session's deadline.
	 * @param priority the priority class
	 * @param deadline the session's deadline, or {@code null}
	 * @param sessionId the session's id, for the message of a timeout
	 * @param tenant the session's tenant, or {@code null} for the default one
	 * @return the stream, with no pending work
	 * @throws SessionTimeoutException if the deadline passed before a stream was free
	 * @throws StreamBorrowTimeoutException if the class (lane) or the bounded pool stayed
	 * full for the borrow timeout
	 */
	PooledStream borrow(StreamPriority priority, @Nullable SessionDeadline deadline, long sessionId,
			@Nullable String tenant) {
		return borrow(priority, deadline, sessionId, this.tenants.of(tenant));
	}

	/**
	 * Lends a stream of {@code priority} to a tenant a session resolved as it opened.
	 * @param priority the priority class
	 * @param deadline the session's deadline, or {@code null}
	 * @param sessionId the session's id, for the message of a timeout
	 * @param borrower the session's tenant
	 * @return the stream, with no pending work
	 */
	PooledStream borrow(StreamPriority priority, @Nullable SessionDeadline deadline, long sessionId,
			LendingTenant borrower) {
		PooledStream stream;
		if (deadline == null) {
			stream = this.lending.borrow(priority.ordinal(), borrower);
		}
		else {
			try {
				stream = this.lending.borrow(priority.ordinal(), deadline.deadlineNanos(), borrower);
			}
			catch (DeadlinePassed ex) {
				sessionTimedOut();
				throw new SessionTimeoutException(this.device.id(), sessionId, "a stream",
						Duration.ofNanos(ex.waitedNanos), deadline.timeout());
			}
		}
		this.device.listener().streamBorrowed(this.device, priority, stream.waitNanos());
		return stream;
	}

	/**
	 * Takes back a stream whose work is all done, for the next borrower.
	 * @param stream a stream this pool lent
	 * @throws IllegalStateException if the stream is not lent
	 */
	void release(PooledStream stream) {
		this.lending.release(stream);
	}

	/**
	 * Returns how often waiting borrowers woke up.
	 */
	long wakeUps() {
		return this.lending.wakeUps();
	}

	/**
	 * Destroys a lent stream whose work failed (or may still be pending), so that it is
	 * never lent again; the next borrow that finds the class empty replaces it.
	 * @param stream a stream this pool lent
	 * @param cause why it is discarded
	 */
	void discard(PooledStream stream, Throwable cause) {
		this.lending.discard(stream, () -> {
			logger.debug("Discarded {} of device {}: {}", stream, this.device.id(), String.valueOf(cause));
			this.device.listener().streamDiscarded(this.device, cause);
		});
	}

	/**
	 * Throws if the pool lends no streams: the device failed, or the pool is shut down.
	 */
	void checkLending() {
		checkDevice();
		if (this.lending.isClosed()) {
			throw new StreamPoolClosedException(this.device.id());
		}
	}

	private void checkDevice() {
		Throwable cause = this.device.stickyError();
		if (cause != null) {
			throw new DeviceFailedException(this.device.id(), cause);
		}
	}

	/**
	 * Wakes every waiter, once the device failed, so that each fails at once instead of
	 * at its deadline; streams already lent are discarded as their sessions end.
	 */
	void deviceFailed() {
		this.lending.signal();
	}

	/**
	 * Stops lending, destroys the idle streams, and waits up to {@code awaitTermination}
	 * for lent streams to come back (they are destroyed as they do). A stream still lent
	 * afterwards is left alone, never destroyed under its user.
	 * @param awaitTermination how long to wait for lent streams
	 * @return {@code true} if every stream came back in time
	 */
	boolean shutdown(Duration awaitTermination) {
		return this.lending.shutdown(awaitTermination.toNanos());
	}

	@Override
	public String toString() {
		StreamPoolStatistics stats = statistics();
		return "StreamPool[device " + this.device.id() + ", size=" + stats.size() + ", inUse=" + stats.inUse()
				+ ", idle=" + stats.idle() + ", waiting=" + stats.waiting() + "]";
	}

	/**
	 * The device's side of the lending: its streams, its health, its completion executor
	 * and the exceptions a session sees.
	 */
	private final class Streams implements LendingItems<PooledStream> {

		@Override
		public List<PooledStream> create(int classIndex, int count) {
			StreamPriority priority = PRIORITIES[classIndex];
			int nativePriority = StreamPool.this.device.nativePriority(priority);
			List<PooledStream> made = new ArrayList<>(count);
			try {
				for (int i = 0; i < count; i++) {
					BackendStream stream = StreamPool.this.device.backendDevice().createStream(nativePriority);
					made.add(new PooledStream(StreamPool.this.nextId.getAndIncrement(), priority, stream));
				}
			}
			catch (BackendException ex) {
				StreamPool.this.device.failIfSticky(ex);
				if (made.isEmpty()) {
					throw ex;
				}
				logger.warn("Stream pool of device {} created {} of {} streams: {}", StreamPool.this.device.id(),
						made.size(), count, ex.getMessage());
			}
			return made;
		}

		@Override
		public void destroy(PooledStream stream) {
			// Library handles bound to the stream (cuBLAS) go first, and their workspace.
			StreamPool.this.device.sessions().libraryHandles.close(stream);
			stream.backend.destroy();
		}

		@Override
		public void checkLending() {
			checkDevice();
		}

		@Override
		public boolean canCreate() {
			return StreamPool.this.device.stickyError() == null;
		}

		@Override
		public void execute(Runnable task) {
			StreamPool.this.device.completions().executor().execute(task);
		}

		@Override
		public RuntimeException closed() {
			return new StreamPoolClosedException(StreamPool.this.device.id());
		}

		@Override
		public RuntimeException timedOut(int classIndex, long waitedNanos) {
			StreamPriority priority = PRIORITIES[classIndex];
			StreamPool.this.device.listener().borrowTimedOut(StreamPool.this.device);
			StreamPoolStatistics statistics = statistics();
			StreamPoolConfig.Lane lane = StreamPool.this.config.lanes().get(priority);
			int laneInUse = (statistics.byPriority().containsKey(priority))
					? statistics.byPriority().get(priority).inUse() : 0;
			String detail = (lane != null) ? priority + " lane " + laneInUse + "/" + lane.maxSessions() + " lent"
					: null;
			return new StreamBorrowTimeoutException(StreamPool.this.device.id(), statistics,
					Duration.ofNanos(waitedNanos), detail);
		}

		@Override
		public RuntimeException deadlinePassed(int classIndex, long waitedNanos) {
			return new DeadlinePassed(waitedNanos);
		}

		@Override
		public RuntimeException interrupted(InterruptedException cause) {
			return new OffloadException(
					"Interrupted while waiting for a stream of device " + StreamPool.this.device.id(), cause);
		}

		@Override
		public String className(int classIndex) {
			return PRIORITIES[classIndex].toString();
		}

	}

	/**
	 * A session's deadline passed while its borrow waited; {@link #borrow} turns it into
	 * the session's {@link SessionTimeoutException}, which carries the session's id.
	 */
	private static final class DeadlinePassed extends RuntimeException {

		private static final long serialVersionUID = 1L;

		final long waitedNanos;

		DeadlinePassed(long waitedNanos) {
			super(null, null, false, false);
			this.waitedNanos = waitedNanos;
		}

	}

}
