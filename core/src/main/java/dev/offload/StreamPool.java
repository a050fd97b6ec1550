package dev.offload;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * the stream it released last (no contention, warm caches), then scans the class's
 * streams from a place that depends on the thread. One shared counter changes on the fast
 * path, the streams lent now (on a cache line of its own), so that the peak in use is
 * exact; each stream counts its own borrows, and idle and lent streams are counted from
 * their states when asked. The lock serves growth, waiting and shutdown only; a release
 * takes it only when a borrower waits.
 * <p>
 * How it waits: a borrower that finds no stream and cannot grow the pool queues in its
 * class's queue of waiters, first come, first served. A release while borrowers wait
 * hands the stream to the oldest waiter of its class and wakes that one alone (it gets
 * the stream even if a new borrower scans meanwhile); with no waiter of its class, it
 * wakes the oldest waiter of the other class, which may replace an idle stream by one of
 * its own. A discard wakes one waiter to replace the stream. So each stream given back
 * wakes one waiter, not all of them, and waiters of a class are served in their order of
 * arrival.
 * <p>
 * Invariants: a stream in the pool has no pending work (sessions synchronize before they
 * release); a stream whose work failed is {@linkplain #discard destroyed}, never lent
 * again; {@code created - destroyed == idle + inUse}.
 * <p>
 * What an application can call is read-only (counts, statistics, configuration): sessions
 * borrow and release, and the {@link DeviceRegistry} owns the pool's lifecycle (it shuts
 * the pool down when it closes).
 */
public final class StreamPool {

	private static final Logger logger = LoggerFactory.getLogger(StreamPool.class);

	private static final StreamPriority[] PRIORITIES = StreamPriority.values();

	/**
	 * The index of the lent counter in its array: 64 bytes of other elements on either
	 * side.
	 */
	private static final int LENT_SLOT = 16;

	/**
	 * The most streams a borrower creates itself, and the size of the batches created in
	 * the background.
	 */
	static final int GROW_BATCH = 64;

	/** The lent streams from which the next doubling begins in the background. */
	private volatile int growAheadAt = Integer.MAX_VALUE;

	private final Device device;

	private final StreamPoolConfig config;

	private final ClassState[] classes = new ClassState[PRIORITIES.length];

	private final ThreadLocal<PooledStream> lastReleased = new ThreadLocal<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final AtomicInteger waiting = new AtomicInteger();

	/** The borrowers waiting, per priority class, oldest first; guarded by the lock. */
	private final List<ArrayDeque<Waiter>> waiters = new ArrayList<>();

	/** How often a waiting borrower woke up: for tests. */
	private final AtomicLong wakeUps = new AtomicLong();

	/**
	 * The streams lent now, in the middle of 32 ints so that no other field shares its
	 * cache line; counted from the moment a borrow takes a stream to the moment its
	 * release begins, so it never exceeds the streams lent.
	 */
	private final AtomicIntegerArray lentCounter = new AtomicIntegerArray(2 * LENT_SLOT);

	private volatile int peakInUse;

	private final AtomicInteger nextId = new AtomicInteger();

	private final AtomicLong grows = new AtomicLong();

	private final AtomicLong created = new AtomicLong();

	private final AtomicLong destroyed = new AtomicLong();

	private final AtomicLong discarded = new AtomicLong();

	private final AtomicLong timeouts = new AtomicLong();

	private final AtomicLong sessionTimeouts = new AtomicLong();

	/**
	 * The start times of the borrows waiting now, for the oldest wait; touched on the
	 * slow path only.
	 */
	private final ConcurrentLinkedQueue<long[]> waitStarts = new ConcurrentLinkedQueue<>();

	private volatile boolean closed;

	StreamPool(Device device, StreamPoolConfig config) {
		this.device = device;
		this.config = config;
		for (StreamPriority priority : PRIORITIES) {
			this.waiters.add(new ArrayDeque<>());
			this.classes[priority.ordinal()] = new ClassState(config.maxSessions(priority),
					config.borrowTimeout(priority).toNanos());
		}
	}

	/**
	 * Returns how long a borrower of {@code priority} waits at most (its lane's borrow
	 * timeout, or the pool's); a session's wait for memory has the same bound.
	 */
	long borrowTimeoutNanos(StreamPriority priority) {
		return this.classes[priority.ordinal()].borrowTimeoutNanos;
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
		return this.closed;
	}

	/**
	 * Returns the streams lent now.
	 * @return the number in use
	 */
	public int inUse() {
		int count = 0;
		for (ClassState state : this.classes) {
			for (PooledStream stream : state.streams) {
				count += (stream.state() == PooledStream.STATE_IN_USE) ? 1 : 0;
			}
		}
		return count;
	}

	/**
	 * Returns the borrowers waiting now.
	 * @return the number waiting
	 */
	public int waiting() {
		return this.waiting.get();
	}

	/**
	 * Tells whether the pool is saturated: a borrower waits because every stream it may
	 * be lent (within the pool's bound and its lane's limit) is lent. Readiness checks
	 * can report such a device as busy.
	 * @return {@code true} while at least one borrower waits
	 */
	public boolean isSaturated() {
		return this.waiting.get() > 0;
	}

	/**
	 * Returns how long the borrower that has waited longest has waited so far.
	 * @return the time, {@link Duration#ZERO} when nobody waits
	 */
	public Duration oldestWait() {
		long now = System.nanoTime();
		long oldest = 0;
		for (long[] start : this.waitStarts) {
			oldest = Math.max(oldest, now - start[0]);
		}
		return Duration.ofNanos(oldest);
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
		Map<StreamPriority, StreamPoolStatistics.PriorityStatistics> byPriority = new EnumMap<>(StreamPriority.class);
		int idle = 0;
		int inUse = 0;
		long borrows = 0;
		for (StreamPriority priority : PRIORITIES) {
			int classIdle = 0;
			int classInUse = 0;
			ClassState priorityClass = this.classes[priority.ordinal()];
			PooledStream[] streams;
			// The streams and the retired borrows as one snapshot: a stream discarded
			// meanwhile is counted once, in the array or in the retired borrows (read
			// apart, a read between the two missed its borrows).
			synchronized (priorityClass) {
				streams = priorityClass.streams;
				borrows += priorityClass.retiredBorrows;
			}
			for (PooledStream stream : streams) {
				int state = stream.state();
				classIdle += (state == PooledStream.STATE_IDLE) ? 1 : 0;
				classInUse += (state == PooledStream.STATE_IN_USE) ? 1 : 0;
				borrows += stream.borrows;
			}
			idle += classIdle;
			inUse += classInUse;
			if (classIdle + classInUse > 0) {
				byPriority.put(priority,
						new StreamPoolStatistics.PriorityStatistics(classIdle + classInUse, classInUse, classIdle));
			}
		}
		raisePeak(inUse);
		long alive = this.created.get() - this.destroyed.get();
		return new StreamPoolStatistics(this.device.id(), (int) alive, inUse, idle, this.peakInUse,
				this.config.maxSize(), this.waiting.get(), borrows, this.grows.get(), this.created.get(),
				this.destroyed.get(), this.discarded.get(), this.timeouts.get(), this.sessionTimeouts.get(),
				this.device.pendingCompletions(), oldestWait(), Map.copyOf(byPriority));
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
		return borrow(priority, null, 0);
	}

	/**
	 * Lends a stream of {@code priority}, waiting no longer than a session's deadline.
	 * @param priority the priority class
	 * @param deadline the session's deadline, or {@code null}
	 * @param sessionId the session's id, for the message of a timeout
	 * @return the stream, with no pending work
	 * @throws SessionTimeoutException if the deadline passed before a stream was free
	 * @throws StreamBorrowTimeoutException if the class (lane) or the bounded pool stayed
	 * full for the borrow timeout
	 */
	PooledStream borrow(StreamPriority priority, @Nullable SessionDeadline deadline, long sessionId) {
		checkLending();
		PooledStream stream = takeIdle(priority);
		long waitNanos = 0;
		if (stream == null) {
			// Only the slow path reads the clock: System.nanoTime costs about 100 ns on
			// some virtual machines, more than the whole fast path; a borrow served from
			// the idle streams is recorded as taking no time.
			long start = System.nanoTime();
			stream = borrowSlow(priority, start, deadline, sessionId);
			waitNanos = System.nanoTime() - start;
		}
		int lent = this.lentCounter.incrementAndGet(LENT_SLOT);
		if (lent > this.peakInUse) {
			raisePeak(lent);
		}
		if (lent >= this.growAheadAt) {
			growAhead(priority);
		}
		stream.borrows++;
		this.device.listener().streamBorrowed(this.device, priority, waitNanos);
		return stream;
	}

	private void raisePeak(int now) {
		if (now > this.peakInUse) {
			synchronized (this) {
				if (now > this.peakInUse) {
					this.peakInUse = now;
				}
			}
		}
	}

	private @Nullable PooledStream takeIdle(StreamPriority priority) {
		PooledStream last = this.lastReleased.get();
		if (last != null && last.priority == priority
				&& last.compareAndSetState(PooledStream.STATE_IDLE, PooledStream.STATE_IN_USE)) {
			return last;
		}
		PooledStream[] streams = this.classes[priority.ordinal()].streams;
		int count = streams.length;
		if (count == 0) {
			return null;
		}
		// Threads start their scans at different streams, so that they do not all race
		// for the first idle one.
		int start = (int) (Thread.currentThread().getId() % count);
		for (int i = 0; i < count; i++) {
			PooledStream stream = streams[(start + i) % count];
			if (stream.state() == PooledStream.STATE_IDLE
					&& stream.compareAndSetState(PooledStream.STATE_IDLE, PooledStream.STATE_IN_USE)) {
				return stream;
			}
		}
		return null;
	}

	private PooledStream borrowSlow(StreamPriority priority, long start, @Nullable SessionDeadline deadline,
			long sessionId) {
		long timeoutNanos = this.classes[priority.ordinal()].borrowTimeoutNanos;
		long[] waitStart = { start };
		this.waiting.incrementAndGet();
		this.waitStarts.add(waitStart);
		ArrayDeque<Waiter> queue = this.waiters.get(priority.ordinal());
		Waiter waiter = null;
		this.lock.lock();
		try {
			while (true) {
				if (waiter != null && waiter.stream != null) {
					return waiter.stream;
				}
				checkLending();
				PooledStream stream = takeIdle(priority);
				if (stream != null) {
					return stream;
				}
				if (grow(priority)) {
					continue;
				}
				long remaining = timeoutNanos - (System.nanoTime() - start);
				if (deadline != null && deadline.remainingNanos() < remaining) {
					remaining = deadline.remainingNanos();
					if (remaining <= 0) {
						throw sessionTimedOut(start, deadline, sessionId);
					}
				}
				if (remaining <= 0) {
					throw timedOut(priority, start);
				}
				if (waiter == null) {
					waiter = new Waiter(this.lock.newCondition());
					queue.addLast(waiter);
				}
				else if (!waiter.queued) {
					// Woken to try again and found nothing: it keeps its place.
					queue.addFirst(waiter);
				}
				waiter.queued = true;
				waiter.wake.awaitNanos(remaining);
				this.wakeUps.incrementAndGet();
			}
		}
		catch (InterruptedException ex) {
			if (waiter != null && waiter.stream != null) {
				// Handed a stream as the interrupt came: keep it, and the interrupt.
				Thread.currentThread().interrupt();
				return waiter.stream;
			}
			Thread.currentThread().interrupt();
			throw new OffloadException("Interrupted while waiting for a stream of device " + this.device.id(), ex);
		}
		finally {
			if (waiter != null && waiter.queued) {
				queue.remove(waiter);
			}
			this.waiting.decrementAndGet();
			this.waitStarts.remove(waitStart);
			this.lock.unlock();
		}
	}

	private StreamBorrowTimeoutException timedOut(StreamPriority priority, long start) {
		this.timeouts.incrementAndGet();
		this.device.listener().borrowTimedOut(this.device);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		// This borrower still counts as waiting while it reports the pool's state.
		StreamPoolStatistics statistics = statistics();
		StreamPoolConfig.Lane lane = this.config.lanes().get(priority);
		int laneInUse = (statistics.byPriority().containsKey(priority)) ? statistics.byPriority().get(priority).inUse()
				: 0;
		String detail = (lane != null) ? priority + " lane " + laneInUse + "/" + lane.maxSessions() + " lent" : null;
		return new StreamBorrowTimeoutException(this.device.id(), statistics, waited, detail);
	}

	private SessionTimeoutException sessionTimedOut(long start, SessionDeadline deadline, long sessionId) {
		sessionTimedOut();
		return new SessionTimeoutException(this.device.id(), sessionId, "a stream",
				Duration.ofNanos(System.nanoTime() - start), deadline.timeout());
	}

	/**
	 * Creates streams for {@code priority} while holding the lock: first replacing
	 * discarded ones, else doubling.
	 * @return whether at least one stream was created
	 */
	private boolean grow(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		int size = state.streams.length;
		int count;
		boolean doubling = false;
		if (size < state.capacity) {
			count = state.capacity - size;
		}
		else {
			count = (state.capacity == 0) ? this.config.initialSize() : state.capacity;
			doubling = state.capacity > 0;
		}
		// A lane holds at most its limit of streams, so that at most that many of its
		// sessions hold one at once.
		count = Math.min(count, state.limit - size);
		if (this.config.isBounded()) {
			int alive = (int) (this.created.get() - this.destroyed.get());
			count = Math.min(count, this.config.maxSize() - alive);
		}
		if (count <= 0) {
			// A class at its lane's limit takes no stream from the other class either.
			return this.config.isBounded() && size < state.limit && replaceIdleOfOtherClass(priority);
		}
		int now = Math.min(count, GROW_BATCH);
		int made = createStreams(priority, now);
		state.capacity = Math.max(state.capacity, state.streams.length + ((made == now) ? count - now : 0));
		if (made == now && count > now) {
			growInBackground(priority);
		}
		if (doubling && made > 0) {
			this.grows.incrementAndGet();
			logger.debug("Stream pool of device {} grew its {} class to {} streams", this.device.id(), priority,
					state.streams.length);
		}
		return made > 0;
	}

	/**
	 * Begins the next doubling of {@code priority}'s class in the background, unless one
	 * is under way: a borrow left three quarters of the streams lent.
	 */
	private void growAhead(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		int length = state.streams.length;
		// Unlocked reads, as a hint: most borrows past the mark return here.
		if (state.growing || this.closed || length < GROW_BATCH || length >= state.limit || state.capacity > length
				|| !this.lock.tryLock()) {
			return;
		}
		try {
			int size = state.streams.length;
			if (state.growing || size < GROW_BATCH || state.capacity > size) {
				return;
			}
			int target = Math.min(2 * size, state.limit);
			if (this.config.isBounded()) {
				int alive = (int) (this.created.get() - this.destroyed.get());
				target = Math.min(target, size + this.config.maxSize() - alive);
			}
			if (target > size) {
				state.capacity = target;
				this.grows.incrementAndGet();
				growInBackground(priority);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Has the completion executor create the streams {@code priority}'s class lacks to
	 * reach its capacity, in batches, each handed to the waiters as it is made; while
	 * holding the lock. Borrowers that find no stream meanwhile create their own batch.
	 */
	private void growInBackground(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		if (state.growing) {
			return;
		}
		state.growing = true;
		try {
			this.device.completionExecutor().execute(() -> createInBatches(priority));
		}
		catch (RuntimeException ex) {
			state.growing = false;
			logger.debug("Stream pool of device {} grows on its borrowers' path: {}", this.device.id(),
					ex.getMessage());
		}
	}

	private void createInBatches(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		try {
			while (true) {
				this.lock.lock();
				try {
					int size = state.streams.length;
					int count = Math.min(state.capacity, state.limit) - size;
					if (this.config.isBounded()) {
						int alive = (int) (this.created.get() - this.destroyed.get());
						count = Math.min(count, this.config.maxSize() - alive);
					}
					if (count <= 0 || this.closed || this.device.stickyError() != null) {
						return;
					}
					int made = createStreams(priority, Math.min(count, GROW_BATCH));
					for (int i = 0; i < made; i++) {
						wakeOldestOf(priority);
					}
				}
				finally {
					this.lock.unlock();
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Stream pool of device {} could not grow its {} class in the background: {}", this.device.id(),
					priority, ex.getMessage());
		}
		finally {
			this.lock.lock();
			try {
				state.growing = false;
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Wakes the oldest waiter of {@code priority} to take a stream just made; while
	 * holding the lock.
	 */
	private void wakeOldestOf(StreamPriority priority) {
		Waiter first = this.waiters.get(priority.ordinal()).pollFirst();
		if (first != null) {
			first.queued = false;
			first.wake.signal();
		}
	}

	/**
	 * Makes room in a full bounded pool, while holding the lock: destroys an idle stream
	 * of another class and creates one of {@code priority} in its place. Without it, a
	 * pool filled by one class would make every borrow of the other class wait its full
	 * timeout next to idle streams.
	 * @return whether a stream of {@code priority} was created
	 */
	private boolean replaceIdleOfOtherClass(StreamPriority priority) {
		for (StreamPriority other : PRIORITIES) {
			if (other == priority) {
				continue;
			}
			for (PooledStream stream : this.classes[other.ordinal()].streams) {
				if (stream.compareAndSetState(PooledStream.STATE_IDLE, PooledStream.STATE_DISCARDED)) {
					retire(stream);
					logger.debug("Stream pool of device {} is full: replaced idle {} by a {} stream", this.device.id(),
							stream, priority);
					ClassState state = this.classes[priority.ordinal()];
					int made = createStreams(priority, 1);
					state.capacity = Math.max(state.capacity, state.streams.length);
					return made > 0;
				}
			}
		}
		return false;
	}

	private int createStreams(StreamPriority priority, int count) {
		int nativePriority = this.device.nativePriority(priority);
		List<PooledStream> made = new ArrayList<>(count);
		try {
			for (int i = 0; i < count; i++) {
				BackendStream stream = this.device.backendDevice().createStream(nativePriority);
				this.created.incrementAndGet();
				made.add(new PooledStream(this.nextId.getAndIncrement(), priority, stream));
			}
		}
		catch (BackendException ex) {
			this.device.failIfSticky(ex);
			if (made.isEmpty()) {
				throw ex;
			}
			logger.warn("Stream pool of device {} created {} of {} streams: {}", this.device.id(), made.size(), count,
					ex.getMessage());
		}
		this.classes[priority.ordinal()].add(made);
		updateGrowAhead();
		return made.size();
	}

	/**
	 * Sets the lent count from which the next doubling begins ahead: three quarters of
	 * the streams, once there are {@link #GROW_BATCH} and the pool may grow.
	 */
	private void updateGrowAhead() {
		int alive = (int) (this.created.get() - this.destroyed.get());
		boolean mayGrow = !this.config.isBounded() || alive < this.config.maxSize();
		this.growAheadAt = (alive >= GROW_BATCH && mayGrow) ? alive - alive / 4 : Integer.MAX_VALUE;
	}

	/**
	 * Takes back a stream whose work is all done, for the next borrower.
	 * @param stream a stream this pool lent
	 * @throws IllegalStateException if the stream is not lent
	 */
	void release(PooledStream stream) {
		returned(stream, PooledStream.STATE_IDLE);
		if (this.closed) {
			// Shutdown's drain may have run before this stream came back; whoever wins
			// the state change destroys it.
			destroy(stream, PooledStream.STATE_IDLE);
			signal();
			return;
		}
		if (this.waiting.get() > 0 && handOff(stream)) {
			return;
		}
		if (this.lastReleased.get() != stream) {
			this.lastReleased.set(stream);
		}
	}

	/**
	 * Gives a stream just made idle to the oldest waiter of its class, or wakes the
	 * oldest waiter of another class, which may replace an idle stream by one of its own.
	 * @return whether the stream was handed to a waiter
	 */
	private boolean handOff(PooledStream stream) {
		this.lock.lock();
		try {
			Waiter first = this.waiters.get(stream.priority.ordinal()).pollFirst();
			if (first != null) {
				first.queued = false;
				if (stream.compareAndSetState(PooledStream.STATE_IDLE, PooledStream.STATE_IN_USE)) {
					first.stream = stream;
					first.wake.signal();
					return true;
				}
				// A borrower that scanned took it: this waiter tries again.
				first.wake.signal();
				return false;
			}
			wakeOldest();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wakes the waiter that has waited longest, of any class, to try again; while holding
	 * the lock.
	 */
	private void wakeOldest() {
		ArrayDeque<Waiter> from = this.waiters.get(0);
		for (ArrayDeque<Waiter> queue : this.waiters) {
			Waiter first = queue.peekFirst();
			Waiter oldest = from.peekFirst();
			if (first != null && (oldest == null || first.since - oldest.since < 0)) {
				from = queue;
			}
		}
		Waiter oldest = from.pollFirst();
		if (oldest != null) {
			oldest.queued = false;
			oldest.wake.signal();
		}
	}

	/**
	 * Returns how often waiting borrowers woke up.
	 */
	long wakeUps() {
		return this.wakeUps.get();
	}

	/**
	 * Destroys a lent stream whose work failed (or may still be pending), so that it is
	 * never lent again; the next borrow that finds the class empty replaces it.
	 * @param stream a stream this pool lent
	 * @param cause why it is discarded
	 */
	void discard(PooledStream stream, Throwable cause) {
		returned(stream, PooledStream.STATE_DISCARDED);
		this.discarded.incrementAndGet();
		retire(stream);
		logger.debug("Discarded {} of device {}: {}", stream, this.device.id(), String.valueOf(cause));
		this.device.listener().streamDiscarded(this.device, cause);
		if (this.waiting.get() > 0) {
			this.lock.lock();
			try {
				wakeOldest();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void returned(PooledStream stream, int newState) {
		// Counted down before the state change: once idle, the stream may be lent and
		// counted again at once.
		this.lentCounter.decrementAndGet(LENT_SLOT);
		if (!stream.compareAndSetState(PooledStream.STATE_IN_USE, newState)) {
			this.lentCounter.incrementAndGet(LENT_SLOT);
			throw new IllegalStateException("The " + stream + " of device " + this.device.id() + " is not lent");
		}
	}

	private void destroy(PooledStream stream, int expectedState) {
		if (stream.compareAndSetState(expectedState, PooledStream.STATE_DISCARDED)) {
			retire(stream);
		}
	}

	private void retire(PooledStream stream) {
		this.classes[stream.priority.ordinal()].remove(stream);
		try {
			stream.backend.destroy();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not destroy {} of device {}: {}", stream, this.device.id(), ex.getMessage());
		}
		finally {
			this.destroyed.incrementAndGet();
		}
	}

	/**
	 * Wakes every waiter and the shutdown: the pool stops lending.
	 */
	private void signal() {
		this.lock.lock();
		try {
			this.changed.signalAll();
			wakeAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void wakeAll() {
		for (ArrayDeque<Waiter> queue : this.waiters) {
			Waiter waiter;
			while ((waiter = queue.pollFirst()) != null) {
				waiter.queued = false;
				waiter.wake.signal();
			}
		}
	}

	/**
	 * Throws if the pool lends no streams: the device failed, or the pool is shut down.
	 */
	void checkLending() {
		Throwable cause = this.device.stickyError();
		if (cause != null) {
			throw new DeviceFailedException(this.device.id(), cause);
		}
		if (this.closed) {
			throw new StreamPoolClosedException(this.device.id());
		}
	}

	/**
	 * Wakes every waiter, once the device failed, so that each fails at once instead of
	 * at its deadline; streams already lent are discarded as their sessions end.
	 */
	void deviceFailed() {
		signal();
	}

	/**
	 * Stops lending, destroys the idle streams, and waits up to {@code awaitTermination}
	 * for lent streams to come back (they are destroyed as they do). A stream still lent
	 * afterwards is left alone, never destroyed under its user.
	 * @param awaitTermination how long to wait for lent streams
	 * @return {@code true} if every stream came back in time
	 */
	boolean shutdown(Duration awaitTermination) {
		long deadline = System.nanoTime() + awaitTermination.toNanos();
		this.lock.lock();
		try {
			this.closed = true;
			this.changed.signalAll();
			wakeAll();
			drainIdle();
			while (inUse() > 0) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				this.changed.awaitNanos(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return inUse() == 0;
		}
		finally {
			drainIdle();
			this.lock.unlock();
		}
	}

	private void drainIdle() {
		for (ClassState state : this.classes) {
			for (PooledStream stream : state.streams) {
				destroy(stream, PooledStream.STATE_IDLE);
			}
		}
	}

	@Override
	public String toString() {
		StreamPoolStatistics stats = statistics();
		return "StreamPool[device " + this.device.id() + ", size=" + stats.size() + ", inUse=" + stats.inUse()
				+ ", idle=" + stats.idle() + ", waiting=" + stats.waiting() + "]";
	}

	/**
	 * A borrower waiting for a stream; guarded by the pool's lock.
	 */
	private static final class Waiter {

		final Condition wake;

		final long since = System.nanoTime();

		/** Whether it is in its class's queue. */
		boolean queued;

		/** The stream a release handed to it. */
		@Nullable PooledStream stream;

		Waiter(Condition wake) {
			this.wake = wake;
		}

	}

	/**
	 * The streams of one priority class.
	 */
	private static final class ClassState {

		/**
		 * Every stream of the class that is not destroyed; replaced, never changed, on
		 * growth and discard.
		 */
		volatile PooledStream[] streams = new PooledStream[0];

		/** The size the class grew to; guarded by the pool's lock. */
		int capacity;

		/** Whether streams are being created in the background; guarded by the lock. */
		volatile boolean growing;

		/**
		 * The borrows of the class's destroyed streams; changes with {@link #streams},
		 * under this monitor.
		 */
		long retiredBorrows;

		/**
		 * The most streams the class holds: its lane's limit, or
		 * {@link Integer#MAX_VALUE}.
		 */
		final int limit;

		/** How long a borrow of the class waits. */
		final long borrowTimeoutNanos;

		ClassState(int limit, long borrowTimeoutNanos) {
			this.limit = limit;
			this.borrowTimeoutNanos = borrowTimeoutNanos;
		}

		synchronized void add(List<PooledStream> made) {
			PooledStream[] grown = Arrays.copyOf(this.streams, this.streams.length + made.size());
			for (int i = 0; i < made.size(); i++) {
				grown[this.streams.length + i] = made.get(i);
			}
			this.streams = grown;
		}

		synchronized void remove(PooledStream stream) {
			this.streams = Arrays.stream(this.streams).filter((each) -> each != stream).toArray(PooledStream[]::new);
			this.retiredBorrows += stream.borrows;
		}

	}

}
