package dev.offload.concurrency.lincheck;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.concurrency.CountingBackend.CountingStream;
import dev.offload.concurrency.CountingBackend;

/**
 * A Lincheck check of borrowers that wait: a pool of one stream, a borrow timeout of an
 * hour, and operations that each borrow, then release or discard, so that every wait ends
 * when another thread gives its stream back. A waiter must end lent the stream (or its
 * replacement) or, once the pool is shut down, refused; with one stream for all threads,
 * a stream lent twice is likely to be seen ({@link Outcome#LENT_TWICE}).
 * <p>
 * The model checker lets a timed wait return at any moment, so a missed signal does not
 * show here as a hang: {@code ReleaseWakesWaitingBorrower} (jcstress) checks the signal.
 */
public class StreamPoolWaitLinearizability {

	private final CountingBackend backend = new CountingBackend();

	private final DeviceRegistry registry = DeviceRegistry.builder(this.backend)
		.streamPool(new StreamPoolConfig(1, 1, Duration.ofHours(1)))
		.awaitTermination(Duration.ZERO)
		.build();

	private final Device device = this.registry.device(0);

	private final StreamPool pool = this.device.streamPool();

	/** The stream a session holds now: the pool has one. */
	private final AtomicReference<CountingStream> lent = new AtomicReference<>();

	/**
	 * Borrows the stream, waiting while another thread has it, and gives it back.
	 * @return {@link Outcome#RELEASED}, or {@link Outcome#REFUSED} after shutdown
	 */
	@Operation
	public Outcome borrowAndRelease() {
		OffloadSession session = open();
		if (session == null) {
			return Outcome.REFUSED;
		}
		if (!lend(session)) {
			return Outcome.LENT_TWICE;
		}
		this.lent.set(null);
		session.close();
		return Outcome.RELEASED;
	}

	/**
	 * Borrows the stream, waiting while another thread has it, fails its work and closes
	 * the session, so that the pool destroys it and the next borrower replaces it.
	 * @return {@link Outcome#DISCARDED}, or {@link Outcome#REFUSED} after shutdown
	 */
	@Operation
	public Outcome borrowAndDiscard() {
		OffloadSession session = open();
		if (session == null) {
			return Outcome.REFUSED;
		}
		if (!lend(session)) {
			return Outcome.LENT_TWICE;
		}
		session.unwrap(CountingStream.class).failWork();
		this.lent.set(null);
		try {
			session.close();
		}
		catch (BackendException ex) {
			return Outcome.DISCARDED;
		}
		throw new IllegalStateException("Closing a session whose work failed did not report the failure");
	}

	/**
	 * Closes the registry, which shuts the pool down, without waiting; its result depends
	 * on whether a borrower is between its borrow and its release, so the operation
	 * reports nothing.
	 * @return {@link Outcome#REFUSED}
	 */
	@Operation
	public Outcome shutdown() {
		this.registry.close(Duration.ZERO);
		return Outcome.REFUSED;
	}

	/**
	 * Marks the session's stream lent for as long as the session holds it; the mark comes
	 * off just before the session is closed.
	 * @return {@code false} if another session holds the stream
	 */
	private boolean lend(OffloadSession session) {
		CountingStream stream = session.unwrap(CountingStream.class);
		return this.lent.compareAndSet(null, stream);
	}

	private OffloadSession open() {
		try {
			OffloadSession session = this.device.openSession();
			session.streamId();
			return session;
		}
		catch (StreamPoolClosedException ex) {
			return null;
		}
	}

	/**
	 * Checks, with no operation running, that nothing is lent or waiting and that the
	 * accounting is exact.
	 */
	@Validate
	public void nothingLentAndAccountingExact() {
		StreamPoolStatistics stats = this.pool.statistics();
		boolean exact = stats.created() - stats.destroyed() == stats.idle() + stats.inUse() && stats.inUse() == 0
				&& stats.waiting() == 0 && stats.size() <= 1 && this.backend.device().created() == stats.created()
				&& this.backend.device().destroyed() == stats.destroyed() && this.backend.device().misuses() == 0
				&& (!this.pool.isClosed() || stats.idle() == 0);
		if (!exact) {
			throw new IllegalStateException("Accounting off at quiescence: " + stats + ", backend created "
					+ this.backend.device().created() + ", destroyed " + this.backend.device().destroyed()
					+ ", misuses " + this.backend.device().misuses());
		}
	}

	/**
	 * The sequential model: every borrow succeeds until shutdown.
	 */
	public static class Specification {

		private boolean closed;

		/**
		 * Borrows and releases.
		 * @return the outcome
		 */
		public Outcome borrowAndRelease() {
			return this.closed ? Outcome.REFUSED : Outcome.RELEASED;
		}

		/**
		 * Borrows and discards.
		 * @return the outcome
		 */
		public Outcome borrowAndDiscard() {
			return this.closed ? Outcome.REFUSED : Outcome.DISCARDED;
		}

		/**
		 * Shuts down.
		 * @return {@link Outcome#REFUSED}
		 */
		public Outcome shutdown() {
			this.closed = true;
			return Outcome.REFUSED;
		}

	}

}
