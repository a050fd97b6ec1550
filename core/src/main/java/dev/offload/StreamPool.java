package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.spi.BackendException;
import dev.offload.spi.BackendStream;

/**
 * The streams of one {@link Device}, each lent to one {@link OffloadSession} at a time and taken back after that
 * session's work is done, so that a synchronize waits only for its own work.
 * <p>
 * How it evolves: nothing is created until the first borrow of a priority class, which creates
 * {@link StreamPoolConfig#initialSize()} streams of that class. A borrow takes the most recently released idle stream
 * (its memory is warm). When a class has no idle stream, the pool first replaces streams it discarded, then doubles
 * the class, up to {@link StreamPoolConfig#maxSize()} streams in all; a borrow from a full bounded pool waits up to
 * {@link StreamPoolConfig#borrowTimeout()} and then throws {@link StreamBorrowTimeoutException}.
 * <p>
 * Invariants: a stream in the pool has no pending work (sessions synchronize before they release); a stream whose
 * work failed is {@linkplain #discard destroyed}, never lent again; {@code created - destroyed == idle + inUse}.
 * The fast paths take no lock: a stream's state changes by compare-and-set; the lock serves growth, waiting and
 * shutdown only.
 */
public final class StreamPool {

	private static final Logger logger = LoggerFactory.getLogger(StreamPool.class);

	private static final StreamPriority[] PRIORITIES = StreamPriority.values();

	private final Device device;

	private final StreamPoolConfig config;

	private final ClassState[] classes = new ClassState[PRIORITIES.length];

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final AtomicInteger waiting = new AtomicInteger();

	private final AtomicInteger inUse = new AtomicInteger();

	private final AtomicInteger peakInUse = new AtomicInteger();

	private final AtomicInteger nextId = new AtomicInteger();

	private final LongAdder borrows = new LongAdder();

	private final AtomicLong grows = new AtomicLong();

	private final AtomicLong created = new AtomicLong();

	private final AtomicLong destroyed = new AtomicLong();

	private final AtomicLong discarded = new AtomicLong();

	private final AtomicLong timeouts = new AtomicLong();

	private volatile boolean closed;

	private volatile Throwable failure;

	StreamPool(Device device, StreamPoolConfig config) {
		this.device = device;
		this.config = config;
		for (StreamPriority priority : PRIORITIES) {
			this.classes[priority.ordinal()] = new ClassState();
		}
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
		return this.inUse.get();
	}

	/**
	 * Returns the borrowers waiting now.
	 * @return the number waiting
	 */
	public int waiting() {
		return this.waiting.get();
	}

	/**
	 * Takes a snapshot of the pool's state and counters.
	 * @return the statistics
	 */
	public StreamPoolStatistics statistics() {
		Map<StreamPriority, StreamPoolStatistics.PriorityStatistics> byPriority = new EnumMap<>(StreamPriority.class);
		int idle = 0;
		for (StreamPriority priority : PRIORITIES) {
			ClassState state = this.classes[priority.ordinal()];
			int classIdle = state.idleCount.get();
			idle += classIdle;
			if (state.size.get() > 0) {
				byPriority.put(priority, new StreamPoolStatistics.PriorityStatistics(state.size.get(),
						state.inUse.get(), classIdle));
			}
		}
		long alive = this.created.get() - this.destroyed.get();
		return new StreamPoolStatistics(this.device.id(), (int) alive, this.inUse.get(), idle, this.peakInUse.get(),
				this.config.maxSize(), this.waiting.get(), this.borrows.sum(), this.grows.get(), this.created.get(),
				this.destroyed.get(), this.discarded.get(), this.timeouts.get(), Map.copyOf(byPriority));
	}

	/**
	 * Lends a stream of {@code priority} exclusively to the caller, creating or waiting as the configuration says.
	 * Sessions call this on their first operation; give the stream back with {@link #release} or {@link #discard}.
	 * @param priority the priority class
	 * @return the stream, with no pending work
	 * @throws StreamBorrowTimeoutException if a bounded pool stayed full for the borrow timeout
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the pool is shut down
	 */
	PooledStream borrow(StreamPriority priority) {
		checkLending();
		long start = System.nanoTime();
		PooledStream stream = pollIdle(priority);
		if (stream == null) {
			stream = borrowSlow(priority, start);
		}
		lent(stream);
		this.device.listener().streamBorrowed(this.device, priority, System.nanoTime() - start);
		return stream;
	}

	private void lent(PooledStream stream) {
		this.borrows.increment();
		this.classes[stream.priority.ordinal()].inUse.incrementAndGet();
		int now = this.inUse.incrementAndGet();
		int peak = this.peakInUse.get();
		while (now > peak && !this.peakInUse.compareAndSet(peak, now)) {
			peak = this.peakInUse.get();
		}
	}

	private PooledStream pollIdle(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		PooledStream stream;
		while ((stream = state.idle.pollFirst()) != null) {
			if (stream.state.compareAndSet(PooledStream.STATE_IDLE, PooledStream.STATE_IN_USE)) {
				state.idleCount.decrementAndGet();
				return stream;
			}
		}
		return null;
	}

	private PooledStream borrowSlow(StreamPriority priority, long start) {
		long timeoutNanos = this.config.borrowTimeout().toNanos();
		this.waiting.incrementAndGet();
		this.lock.lock();
		try {
			while (true) {
				checkLending();
				PooledStream stream = pollIdle(priority);
				if (stream != null) {
					return stream;
				}
				if (grow(priority)) {
					continue;
				}
				long remaining = timeoutNanos - (System.nanoTime() - start);
				if (remaining <= 0) {
					throw timedOut(start);
				}
				this.changed.awaitNanos(remaining);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new OffloadException("Interrupted while waiting for a stream of device " + this.device.id(), ex);
		}
		finally {
			this.waiting.decrementAndGet();
			this.lock.unlock();
		}
	}

	private StreamBorrowTimeoutException timedOut(long start) {
		this.timeouts.incrementAndGet();
		this.device.listener().borrowTimedOut(this.device);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		// This borrower still counts as waiting while it reports the pool's state.
		return new StreamBorrowTimeoutException(this.device.id(), statistics(), waited);
	}

	/**
	 * Creates streams for {@code priority} while holding the lock: first replacing discarded ones, else doubling.
	 * @return whether at least one stream was created
	 */
	private boolean grow(StreamPriority priority) {
		ClassState state = this.classes[priority.ordinal()];
		int size = state.size.get();
		int count;
		boolean doubling = false;
		if (size < state.capacity) {
			count = state.capacity - size;
		}
		else {
			count = (state.capacity == 0) ? this.config.initialSize() : state.capacity;
			doubling = state.capacity > 0;
		}
		if (this.config.isBounded()) {
			int alive = (int) (this.created.get() - this.destroyed.get());
			count = Math.min(count, this.config.maxSize() - alive);
		}
		if (count <= 0) {
			return false;
		}
		int made = createStreams(priority, count);
		state.capacity = Math.max(state.capacity, state.size.get());
		if (doubling && made > 0) {
			this.grows.incrementAndGet();
			logger.debug("Stream pool of device {} grew its {} class to {} streams", this.device.id(), priority,
					state.size.get());
		}
		return made > 0;
	}

	private int createStreams(StreamPriority priority, int count) {
		ClassState state = this.classes[priority.ordinal()];
		int nativePriority = this.device.nativePriority(priority);
		int made = 0;
		for (int i = 0; i < count; i++) {
			BackendStream stream;
			try {
				stream = this.device.backendDevice().createStream(nativePriority);
			}
			catch (BackendException ex) {
				this.device.failIfSticky(ex);
				if (made == 0) {
					throw ex;
				}
				logger.warn("Stream pool of device {} created {} of {} streams: {}", this.device.id(), made, count,
						ex.getMessage());
				break;
			}
			this.created.incrementAndGet();
			state.size.incrementAndGet();
			state.idleCount.incrementAndGet();
			state.idle.offerLast(new PooledStream(this.nextId.getAndIncrement(), priority, stream));
			made++;
		}
		return made;
	}

	/**
	 * Takes back a stream whose work is all done, for the next borrower.
	 * @param stream a stream this pool lent
	 * @throws IllegalStateException if the stream is not lent
	 */
	void release(PooledStream stream) {
		returned(stream, PooledStream.STATE_IDLE);
		ClassState state = this.classes[stream.priority.ordinal()];
		if (this.closed) {
			destroy(stream, PooledStream.STATE_IDLE);
			signalIfWaiting();
			return;
		}
		state.idleCount.incrementAndGet();
		state.idle.offerFirst(stream);
		if (this.closed && state.idle.remove(stream)) {
			// Lost a race with shutdown's drain: the drain did not see this stream, so destroy it here.
			state.idleCount.decrementAndGet();
			destroy(stream, PooledStream.STATE_IDLE);
		}
		signalIfWaiting();
	}

	/**
	 * Destroys a lent stream whose work failed (or may still be pending), so that it is never lent again; the next
	 * borrow that finds the class empty replaces it.
	 * @param stream a stream this pool lent
	 * @param cause why it is discarded
	 */
	void discard(PooledStream stream, Throwable cause) {
		returned(stream, PooledStream.STATE_DISCARDED);
		this.discarded.incrementAndGet();
		this.classes[stream.priority.ordinal()].size.decrementAndGet();
		destroyNow(stream);
		logger.debug("Discarded {} of device {}: {}", stream, this.device.id(), String.valueOf(cause));
		this.device.listener().streamDiscarded(this.device, cause);
		signalIfWaiting();
	}

	private void returned(PooledStream stream, int newState) {
		if (!stream.state.compareAndSet(PooledStream.STATE_IN_USE, newState)) {
			throw new IllegalStateException("The " + stream + " of device " + this.device.id() + " is not lent");
		}
		this.classes[stream.priority.ordinal()].inUse.decrementAndGet();
		this.inUse.decrementAndGet();
	}

	private void destroy(PooledStream stream, int expectedState) {
		if (stream.state.compareAndSet(expectedState, PooledStream.STATE_DISCARDED)) {
			this.classes[stream.priority.ordinal()].size.decrementAndGet();
			destroyNow(stream);
		}
	}

	private void destroyNow(PooledStream stream) {
		try {
			stream.stream.destroy();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not destroy {} of device {}: {}", stream, this.device.id(), ex.getMessage());
		}
		finally {
			this.destroyed.incrementAndGet();
		}
	}

	private void signalIfWaiting() {
		if (this.waiting.get() > 0 || this.closed) {
			this.lock.lock();
			try {
				this.changed.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	private void checkLending() {
		Throwable cause = this.failure;
		if (cause != null) {
			throw new DeviceFailedException(this.device.id(), cause);
		}
		if (this.closed) {
			throw new StreamPoolClosedException(this.device.id());
		}
	}

	/**
	 * Stops lending because the device failed; streams already lent are discarded as their sessions end.
	 * @param cause the sticky error
	 */
	void fail(Throwable cause) {
		if (this.failure == null) {
			this.failure = cause;
			this.lock.lock();
			try {
				this.changed.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	Throwable failure() {
		return this.failure;
	}

	/**
	 * Stops lending, destroys the idle streams, and waits up to {@code awaitTermination} for lent streams to come
	 * back (they are destroyed as they do). A stream still lent afterwards is left alone, never destroyed under its
	 * user.
	 * @param awaitTermination how long to wait for lent streams
	 * @return {@code true} if every stream came back in time
	 */
	public boolean shutdown(Duration awaitTermination) {
		long deadline = System.nanoTime() + awaitTermination.toNanos();
		this.lock.lock();
		try {
			this.closed = true;
			this.changed.signalAll();
			drainIdle();
			while (this.inUse.get() > 0) {
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
			return this.inUse.get() == 0;
		}
		finally {
			drainIdle();
			this.lock.unlock();
		}
	}

	private void drainIdle() {
		for (ClassState state : this.classes) {
			List<PooledStream> drained = new ArrayList<>();
			PooledStream stream;
			while ((stream = state.idle.pollFirst()) != null) {
				drained.add(stream);
			}
			for (PooledStream each : drained) {
				state.idleCount.decrementAndGet();
				destroy(each, PooledStream.STATE_IDLE);
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
	 * The idle streams and counts of one priority class.
	 */
	private static final class ClassState {

		final ConcurrentLinkedDeque<PooledStream> idle = new ConcurrentLinkedDeque<>();

		final AtomicInteger idleCount = new AtomicInteger();

		final AtomicInteger size = new AtomicInteger();

		final AtomicInteger inUse = new AtomicInteger();

		/** The size the class grew to; guarded by the pool's lock. */
		int capacity;

	}

}
