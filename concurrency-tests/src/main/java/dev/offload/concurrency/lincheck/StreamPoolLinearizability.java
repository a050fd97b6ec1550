package dev.offload.concurrency.lincheck;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPool;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.concurrency.CountingBackend.CountingStream;
import dev.offload.concurrency.CountingBackend;

/**
 * A Lincheck check of one device's {@link StreamPool} through the public API: borrow (a
 * session's first use), release ({@code close}), discard (a session whose work failed),
 * growth, a bounded pool's timeout and shutdown (closing the registry), against
 * {@link Specification}, a sequential model that counts streams. Each thread keeps the
 * sessions it holds; a stream lent to a second session at once is reported as
 * {@link Outcome#LENT_TWICE}, which the specification never says. At quiescence
 * {@link #accountingIsExact()} checks the statistics against the backend's own counts.
 * <p>
 * The pool starts with one stream. {@link Bounded} holds at most {@value #MAX_SIZE}, so
 * that three threads find it empty, grow it, find it full and time out; its borrow
 * timeout is one nanosecond, so that a full pool answers at once. The model checker
 * freezes the clock, under which a timeout never expires: it checks {@link Unbounded},
 * and the stress runs check {@link Bounded}.
 */
public abstract class StreamPoolLinearizability {

	static final int MAX_SIZE = 2;

	/**
	 * Room for Lincheck's thread indices, with spare ones for the parts before and after
	 * the parallel part.
	 */
	static final int MAX_THREADS = 8;

	private final CountingBackend backend = new CountingBackend();

	private final DeviceRegistry registry;

	private final Device device;

	private final StreamPool pool;

	private final Holdings holdings = new Holdings();

	StreamPoolLinearizability(int maxSize) {
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(new StreamPoolConfig(1, maxSize, Duration.ofNanos(1)))
			.awaitTermination(Duration.ZERO)
			.build();
		this.device = this.registry.device(0);
		this.pool = this.device.streamPool();
	}

	/**
	 * Opens a session and borrows its stream.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#LENT}, {@link Outcome#TIMED_OUT} or {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome borrow(@Param(gen = ThreadIdGen.class) int thread) {
		return this.holdings.borrow(this.device, thread);
	}

	/**
	 * Closes the calling thread's latest session, giving its stream back.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#RELEASED} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome release(@Param(gen = ThreadIdGen.class) int thread) {
		return this.holdings.release(thread);
	}

	/**
	 * Fails the work of the calling thread's latest session and closes it, so that the
	 * pool destroys its stream.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#DISCARDED} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome discard(@Param(gen = ThreadIdGen.class) int thread) {
		return this.holdings.discard(thread);
	}

	/**
	 * Closes the registry, which shuts the pool down, without waiting; whether it found a
	 * session open depends on where the borrowing threads are within their operations, so
	 * the operation reports nothing.
	 * @return {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome shutdown() {
		this.registry.close(Duration.ZERO);
		return Outcome.REFUSED;
	}

	/**
	 * Checks, with no operation running, that the statistics agree with the backend and
	 * with what the threads hold: {@code created - destroyed == idle + inUse}, nothing
	 * destroyed twice or used after destruction, no held stream destroyed, no idle stream
	 * after shutdown.
	 */
	@Validate
	public void accountingIsExact() {
		this.holdings.check(this.pool.statistics(), this.backend, this.pool.isClosed());
	}

	/**
	 * The sessions each thread holds, and the streams lent to them. Each thread uses only
	 * its own deque.
	 */
	static final class Holdings {

		private final ArrayDeque<OffloadSession>[] held;

		private final Set<Object> lent = ConcurrentHashMap.newKeySet();

		@SuppressWarnings("unchecked")
		Holdings() {
			this.held = new ArrayDeque[MAX_THREADS];
			for (int i = 0; i < MAX_THREADS; i++) {
				this.held[i] = new ArrayDeque<>();
			}
		}

		Outcome borrow(Device device, int thread) {
			OffloadSession session;
			try {
				session = device.openSession();
			}
			catch (StreamPoolClosedException ex) {
				return Outcome.REFUSED;
			}
			return use(session, thread);
		}

		Outcome use(OffloadSession session, int thread) {
			try {
				session.streamId();
			}
			catch (StreamBorrowTimeoutException ex) {
				session.close();
				return Outcome.TIMED_OUT;
			}
			catch (StreamPoolClosedException ex) {
				session.close();
				return Outcome.REFUSED;
			}
			if (!this.lent.add(stream(session))) {
				return Outcome.LENT_TWICE;
			}
			this.held[thread].push(session);
			return Outcome.LENT;
		}

		Outcome release(int thread) {
			OffloadSession session = giveUp(thread);
			if (session == null) {
				return Outcome.NOTHING_HELD;
			}
			session.close();
			return Outcome.RELEASED;
		}

		Outcome discard(int thread) {
			OffloadSession session = giveUp(thread);
			if (session == null) {
				return Outcome.NOTHING_HELD;
			}
			stream(session).failWork();
			try {
				session.close();
			}
			catch (BackendException ex) {
				return Outcome.DISCARDED;
			}
			throw new IllegalStateException("Closing a session whose work failed did not report the failure");
		}

		/**
		 * Takes the thread's latest session out of the lent set before it is closed: once
		 * closed, its stream may be lent again at once.
		 */
		private OffloadSession giveUp(int thread) {
			OffloadSession session = this.held[thread].poll();
			if (session != null) {
				this.lent.remove(stream(session));
			}
			return session;
		}

		int held() {
			int count = 0;
			for (ArrayDeque<OffloadSession> sessions : this.held) {
				count += sessions.size();
			}
			return count;
		}

		void check(StreamPoolStatistics stats, CountingBackend backend, boolean closed) {
			require(stats.created() - stats.destroyed() == stats.idle() + stats.inUse(),
					"created - destroyed != idle + inUse", stats);
			require(stats.inUse() == held(), "inUse != sessions holding a stream (" + held() + ")", stats);
			require(backend.device().created() == stats.created(),
					"the backend created " + backend.device().created() + " streams", stats);
			require(backend.device().destroyed() == stats.destroyed(),
					"the backend destroyed " + backend.device().destroyed() + " streams", stats);
			require(backend.device().misuses() == 0,
					backend.device().misuses() + " stream(s) used or destroyed after destruction", stats);
			for (ArrayDeque<OffloadSession> sessions : this.held) {
				for (OffloadSession session : sessions) {
					require(!stream(session).isDestroyed(), "a held stream was destroyed", stats);
				}
			}
			require(!closed || stats.idle() == 0, "idle streams after shutdown", stats);
		}

		private static CountingStream stream(OffloadSession session) {
			return session.unwrap(CountingStream.class);
		}

		private static void require(boolean condition, String what, StreamPoolStatistics stats) {
			if (!condition) {
				throw new IllegalStateException(what + ": " + stats);
			}
		}

	}

	/**
	 * The pool bounded at {@value #MAX_SIZE} streams, checked by stress runs.
	 */
	public static class Bounded extends StreamPoolLinearizability {

		/**
		 * Creates the pool under test.
		 */
		public Bounded() {
			super(MAX_SIZE);
		}

		/**
		 * The specification of {@link Bounded}.
		 */
		public static class Specification extends StreamPoolLinearizability.Specification {

			/**
			 * Creates the model of an empty pool.
			 */
			public Specification() {
				super(MAX_SIZE);
			}

		}

	}

	/**
	 * The unbounded pool, checked by the model checker.
	 */
	public static class Unbounded extends StreamPoolLinearizability {

		/**
		 * Creates the pool under test.
		 */
		public Unbounded() {
			super(0);
		}

		/**
		 * The specification of {@link Unbounded}.
		 */
		public static class Specification extends StreamPoolLinearizability.Specification {

			/**
			 * Creates the model of an empty pool.
			 */
			public Specification() {
				super(0);
			}

		}

	}

	/**
	 * The sequential model: counts of idle, lent, created and destroyed streams, the
	 * class's capacity for growth, and the sessions each thread holds.
	 */
	abstract static class Specification {

		private final int[] held = new int[MAX_THREADS];

		private final int maxSize;

		private int capacity;

		private int idle;

		private int inUse;

		private int alive;

		private boolean closed;

		Specification(int maxSize) {
			this.maxSize = maxSize;
		}

		/**
		 * Lends an idle stream, else replaces discarded ones or doubles, within the
		 * bound.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome borrow(int thread) {
			if (this.closed) {
				return Outcome.REFUSED;
			}
			if (this.idle == 0 && !grow()) {
				return Outcome.TIMED_OUT;
			}
			this.idle--;
			this.inUse++;
			this.held[thread]++;
			return Outcome.LENT;
		}

		private boolean grow() {
			int count;
			if (this.alive < this.capacity) {
				count = this.capacity - this.alive;
			}
			else {
				count = (this.capacity == 0) ? 1 : this.capacity;
			}
			if (this.maxSize > 0) {
				count = Math.min(count, this.maxSize - this.alive);
			}
			if (count <= 0) {
				return false;
			}
			this.alive += count;
			this.idle += count;
			this.capacity = Math.max(this.capacity, this.alive);
			return true;
		}

		/**
		 * Gives a held stream back: idle again, or destroyed after shutdown.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome release(int thread) {
			if (!giveUp(thread)) {
				return Outcome.NOTHING_HELD;
			}
			if (this.closed) {
				this.alive--;
			}
			else {
				this.idle++;
			}
			return Outcome.RELEASED;
		}

		/**
		 * Destroys a held stream.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome discard(int thread) {
			if (!giveUp(thread)) {
				return Outcome.NOTHING_HELD;
			}
			this.alive--;
			return Outcome.DISCARDED;
		}

		private boolean giveUp(int thread) {
			if (this.held[thread] == 0) {
				return false;
			}
			this.held[thread]--;
			this.inUse--;
			return true;
		}

		/**
		 * Refuses borrows from now on and destroys the idle streams.
		 * @return {@link Outcome#REFUSED}
		 */
		public Outcome shutdown() {
			this.closed = true;
			this.alive -= this.idle;
			this.idle = 0;
			return Outcome.REFUSED;
		}

	}

}
