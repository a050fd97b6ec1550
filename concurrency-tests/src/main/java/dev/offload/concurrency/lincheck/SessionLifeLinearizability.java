package dev.offload.concurrency.lincheck;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.concurrency.CountingBackend;
import dev.offload.concurrency.CountingBackend.CountingStream;

/**
 * A Lincheck check of sessions' lives across threads: a session borrows on its first use,
 * ends with {@code close} or {@code closeAsync} (whose release the device's completion
 * thread does), while the registry may be closed at any moment. The pool starts with one
 * stream (fewer loop iterations for the model checker) and is unbounded, so that no
 * outcome depends on how soon the completion thread releases. At quiescence, once every
 * {@code closeAsync} future is done, {@link #nothingLeaked()} checks that the futures
 * succeeded (or, once the registry closed, were abandoned with their streams left lent),
 * that the accounting is exact, and that no stream was destroyed while lent or used after
 * destruction.
 */
public class SessionLifeLinearizability {

	/**
	 * Room for Lincheck's thread indices, with spare ones for the parts before and after
	 * the parallel part.
	 */
	static final int MAX_THREADS = 8;

	private final CountingBackend backend = new CountingBackend();

	private final DeviceRegistry registry = DeviceRegistry.builder(this.backend)
		.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(1))
		.awaitTermination(Duration.ZERO)
		// Futures complete on the completion thread itself: the default executor's
		// fork/join workers park with timeouts, which never expire under the model
		// checker's frozen clock (a run of the long mode reported that as a hang). Where
		// continuations run is not what this check is about; unit tests cover the
		// hand-off.
		.completionExecutor(Runnable::run)
		.build();

	private final Device device = this.registry.device(0);

	private final StreamPool pool = this.device.streamPool();

	private final ArrayDeque<OffloadSession>[] open;

	private final Set<Object> lent = ConcurrentHashMap.newKeySet();

	private final Queue<CompletableFuture<Void>> closing = new ConcurrentLinkedQueue<>();

	/**
	 * Creates the registry under test.
	 */
	@SuppressWarnings("unchecked")
	public SessionLifeLinearizability() {
		this.open = new ArrayDeque[MAX_THREADS];
		for (int i = 0; i < MAX_THREADS; i++) {
			this.open[i] = new ArrayDeque<>();
		}
	}

	/**
	 * Opens a session; it has no stream yet.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#OPENED} or {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome open(@Param(gen = ThreadIdGen.class) int thread) {
		try {
			this.open[thread].push(this.device.openSession());
			return Outcome.OPENED;
		}
		catch (StreamPoolClosedException ex) {
			return Outcome.REFUSED;
		}
	}

	/**
	 * Uses the thread's latest session, which borrows its stream on first use.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#LENT}, {@link Outcome#REFUSED} or
	 * {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome use(@Param(gen = ThreadIdGen.class) int thread) {
		OffloadSession session = this.open[thread].peek();
		if (session == null) {
			return Outcome.NOTHING_HELD;
		}
		boolean first = !session.hasStream();
		try {
			session.streamId();
		}
		catch (StreamPoolClosedException ex) {
			return Outcome.REFUSED;
		}
		if (first && !this.lent.add(session.unwrap(CountingStream.class))) {
			return Outcome.LENT_TWICE;
		}
		return Outcome.LENT;
	}

	/**
	 * Closes the thread's latest session, waiting for its work.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#RELEASED} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome close(@Param(gen = ThreadIdGen.class) int thread) {
		OffloadSession session = giveUp(thread);
		if (session == null) {
			return Outcome.NOTHING_HELD;
		}
		session.close();
		return Outcome.RELEASED;
	}

	/**
	 * Hands the thread's latest session to the completion thread.
	 * @param thread the calling thread's index
	 * @return {@link Outcome#CLOSING} or {@link Outcome#NOTHING_HELD}
	 */
	@Operation
	public Outcome closeAsync(@Param(gen = ThreadIdGen.class) int thread) {
		OffloadSession session = giveUp(thread);
		if (session == null) {
			return Outcome.NOTHING_HELD;
		}
		this.closing.add(session.closeAsync());
		return Outcome.CLOSING;
	}

	/**
	 * Closes the registry without waiting; whether it found streams lent depends on the
	 * completion thread, so the operation reports nothing.
	 * @return {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome closeRegistry() {
		this.registry.close(Duration.ZERO);
		return Outcome.REFUSED;
	}

	private OffloadSession giveUp(int thread) {
		OffloadSession session = this.open[thread].poll();
		if (session != null && session.hasStream()) {
			this.lent.remove(session.unwrap(CountingStream.class));
		}
		return session;
	}

	/**
	 * Checks, with no operation running and every {@code closeAsync} future done, that
	 * the futures succeeded or were abandoned by the registry's close, that the
	 * accounting is exact, and that no open session's stream was destroyed.
	 * @throws Exception if a future failed or did not complete within a minute (a lost
	 * completion)
	 */
	@Validate
	public void nothingLeaked() throws Exception {
		// A registry closed with no wait abandons the closeAsync sessions still pending:
		// their futures fail and their streams stay lent, never destroyed.
		int abandoned = 0;
		for (CompletableFuture<Void> future : this.closing) {
			try {
				future.get(1, TimeUnit.MINUTES);
			}
			catch (ExecutionException ex) {
				if (!this.pool.isClosed()) {
					throw ex;
				}
				abandoned++;
			}
		}
		int holding = abandoned;
		for (ArrayDeque<OffloadSession> sessions : this.open) {
			for (OffloadSession session : sessions) {
				if (session.hasStream()) {
					holding++;
					if (session.unwrap(CountingStream.class).isDestroyed()) {
						throw new IllegalStateException("The stream of open " + session + " was destroyed");
					}
				}
			}
		}
		StreamPoolStatistics stats = this.pool.statistics();
		boolean exact = stats.created() - stats.destroyed() == stats.idle() + stats.inUse() && stats.inUse() == holding
				&& this.backend.device().created() == stats.created()
				&& this.backend.device().destroyed() == stats.destroyed() && this.backend.device().misuses() == 0
				&& (!this.pool.isClosed() || stats.idle() == 0);
		if (!exact) {
			throw new IllegalStateException("Accounting off at quiescence with " + holding + " session(s) holding a "
					+ "stream: " + stats + ", backend created " + this.backend.device().created() + ", destroyed "
					+ this.backend.device().destroyed() + ", misuses " + this.backend.device().misuses());
		}
	}

	/**
	 * The sequential model: each thread's open sessions, whether each has borrowed, and
	 * whether the registry is closed.
	 */
	public static class Specification {

		@SuppressWarnings("unchecked")
		private final ArrayDeque<Boolean>[] open = new ArrayDeque[MAX_THREADS];

		private boolean closed;

		/**
		 * Creates the model of a fresh registry.
		 */
		public Specification() {
			for (int i = 0; i < MAX_THREADS; i++) {
				this.open[i] = new ArrayDeque<>();
			}
		}

		/**
		 * Opens a session unless the registry is closed.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome open(int thread) {
			if (this.closed) {
				return Outcome.REFUSED;
			}
			this.open[thread].push(false);
			return Outcome.OPENED;
		}

		/**
		 * Uses the latest session: lent if it has its stream or can still borrow one.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome use(int thread) {
			Boolean borrowed = this.open[thread].peek();
			if (borrowed == null) {
				return Outcome.NOTHING_HELD;
			}
			if (borrowed) {
				return Outcome.LENT;
			}
			if (this.closed) {
				return Outcome.REFUSED;
			}
			this.open[thread].pop();
			this.open[thread].push(true);
			return Outcome.LENT;
		}

		/**
		 * Closes the latest session.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome close(int thread) {
			return (this.open[thread].poll() != null) ? Outcome.RELEASED : Outcome.NOTHING_HELD;
		}

		/**
		 * Closes the latest session asynchronously.
		 * @param thread the calling thread's index
		 * @return the outcome
		 */
		public Outcome closeAsync(int thread) {
			return (this.open[thread].poll() != null) ? Outcome.CLOSING : Outcome.NOTHING_HELD;
		}

		/**
		 * Closes the registry.
		 * @return {@link Outcome#REFUSED}
		 */
		public Outcome closeRegistry() {
			this.closed = true;
			return Outcome.REFUSED;
		}

	}

}
