package dev.offload.internal.completion;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.BackendStream;

import static dev.offload.internal.completion.CompletionTuning.JOINERS_WOKEN;
import static dev.offload.internal.completion.CompletionTuning.JOINER_SPIN_NANOS;
import static dev.offload.internal.completion.CompletionTuning.PROCESSORS;

/**
 * The asynchronous close of one session: the completion thread watches its stream and
 * ends the session once the work is done, unless a platform thread that joins the
 * session's future waits for the work itself and ends it first (the joiner rules of
 * {@link #finishForJoiner}). Either way the session is ended once, and its future
 * completes with its outcome.
 */
final class AsyncClose implements CompletionPoller.Task {

	private static final AtomicIntegerFieldUpdater<AsyncClose> STATE = AtomicIntegerFieldUpdater
		.newUpdater(AsyncClose.class, "state");

	/** {@link #state}: nobody touches the stream. */
	private static final int OPEN = 0;

	/** {@link #state}: the completion thread queries the stream. */
	private static final int POLLING = 1;

	/** {@link #state}: a joiner waits for the stream's work and finishes the session. */
	private static final int HELPING = 2;

	/** {@link #state}: finished; the stream may belong to another session. */
	private static final int FINISHED = 3;

	private final Completions completions;

	private final long sessionId;

	private final BackendStream stream;

	private final Completions.SessionEnd session;

	private final CompletionFuture<Void> future;

	/**
	 * Who may touch the stream: the completion thread while it queries it
	 * ({@link #POLLING}), a joiner that waits for the work and finishes the session
	 * ({@link #HELPING}), nobody once it is {@link #FINISHED}. Each takes it from
	 * {@link #OPEN} by compare-and-set, so that neither touches a stream the other gave
	 * back (lent again, or destroyed).
	 */
	private volatile int state;

	AsyncClose(Completions completions, long sessionId, BackendStream stream, Completions.SessionEnd session,
			CompletionFuture<Void> future) {
		this.completions = completions;
		this.sessionId = sessionId;
		this.stream = stream;
		this.session = session;
		this.future = future;
	}

	/**
	 * Called by the completion thread: finishes the session if its work is done, unless a
	 * joiner does.
	 * @return {@code true} when finished (here or by the joiner), {@code false} to poll
	 * again
	 */
	@Override
	public boolean poll() {
		if (!STATE.compareAndSet(this, OPEN, POLLING)) {
			// A joiner waits for the work and finishes the session, or has.
			return this.state == FINISHED;
		}
		return finishIfDone(null);
	}

	/**
	 * Called by the completion thread when the device shut down before this session's
	 * work was seen done: the future fails, and the stream stays lent (it is never
	 * destroyed under running work). A session a joiner is finishing is left to it.
	 */
	@Override
	public void abandon(String reason) {
		if (STATE.compareAndSet(this, OPEN, FINISHED)) {
			this.completions.complete(this.future, this.completions.shutDown(
					"Session " + this.sessionId + " on device " + this.completions.deviceId() + " was " + reason));
		}
	}

	/**
	 * With the session taken ({@link #POLLING} or {@link #HELPING}): finishes it if its
	 * work is done (or failed), else gives it back ({@link #OPEN}) for the completion
	 * thread to watch. The completion thread settles the future and has it published on
	 * the completion executor; a joiner waits for the work in the driver first and
	 * completes the future on its own thread, where it waits for it.
	 * @param joined for a joiner, the future it waits for (it leaves once that is done
	 * otherwise, the work still running); {@code null} for the completion thread
	 * @return whether the session was finished
	 */
	private boolean finishIfDone(@Nullable CompletableFuture<?> joined) {
		boolean done;
		RuntimeException failure = null;
		try {
			if (joined != null) {
				this.completions.joinerEnteredDriver();
				try {
					done = awaitWorkUnlessDone(joined);
				}
				finally {
					this.completions.joinerLeftDriver();
				}
			}
			else {
				done = this.stream.query();
			}
		}
		catch (RuntimeException ex) {
			failure = ex;
			done = true;
		}
		if (!done) {
			// The completion thread watches the work again (its task stays pending while
			// a joiner helps) and finishes the session.
			this.state = OPEN;
			return false;
		}
		this.state = FINISHED;
		// A session handed off after its deadline has its timeout as the outcome; its
		// stream is fine.
		finish(this.completions, this.session, this.future, this.session.outcome(failure), failure, joined == null);
		return true;
	}

	/**
	 * Ends {@code session} ({@code streamFailure}, if any, has its stream discarded) and
	 * completes {@code future} with {@code outcome}: with {@code publishOnExecutor},
	 * settled on this thread and published on the completion executor (the completion
	 * thread, and a joiner that finished the session, run no dependent stage), else
	 * completed on this thread.
	 */
	static void finish(Completions completions, Completions.SessionEnd session, CompletionFuture<Void> future,
			@Nullable Throwable outcome, @Nullable Throwable streamFailure, boolean publishOnExecutor) {
		Throwable result = outcome;
		try {
			session.end(outcome, streamFailure);
		}
		catch (RuntimeException | Error ex) {
			// Ending failed (a stream or an event could not be given back): the future
			// says so rather than report a clean end.
			if (result == null) {
				result = ex;
			}
			else if (result != ex) {
				result.addSuppressed(ex);
			}
		}
		if (publishOnExecutor) {
			completions.complete(future, result);
		}
		else if (result == null) {
			future.complete(null);
		}
		else {
			future.completeExceptionally(result);
		}
	}

	/**
	 * Called by a platform thread in {@code join()} of the session's future: while the
	 * completion thread has more than {@link CompletionTuning#JOINERS_WOKEN} sessions to
	 * watch, and would wake their joiners one after another, or while more sessions are
	 * open on the device than the machine has processors (a joiner waiting actively for
	 * the completion thread would take a processor from their threads), takes the session
	 * from it, waits for the work itself ({@link #awaitWorkUnlessDone}; it gives the
	 * session back if the future it joins is done otherwise first) and finishes the
	 * session, completing its future on this thread. Otherwise the joiner is woken by the
	 * completion thread, which costs a lone joiner less, unless the work is still running
	 * once the joiner has waited briefly ({@code late}) and fewer than
	 * {@link CompletionTuning#JOINERS_WOKEN} joiners wait in the driver: the completion
	 * thread then watches it with pauses of up to
	 * {@link CompletionTuning#MAX_PARK_NANOS}, which the joiner, waiting in the driver,
	 * does not pay. While the completion thread queries the stream (one call), the joiner
	 * waits for it to give the session back, up to
	 * {@link CompletionTuning#JOINER_SPIN_NANOS}. Not on a fork/join pool's thread (the
	 * completion executor's, say), where {@code join()} blocks through the pool's managed
	 * blocking.
	 */
	void finishForJoiner(boolean late, CompletableFuture<?> joined) {
		if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
			return;
		}
		// Early, only to spare the completion thread, or when the sessions' threads fill
		// the processors; late, only while the joiners waiting in the driver (each a
		// spinning thread) leave the processors room.
		boolean declined = late ? this.completions.joinersInDriver() >= JOINERS_WOKEN
				: this.completions.pending() <= JOINERS_WOKEN && this.completions.activeSessions() <= PROCESSORS;
		if (declined) {
			return;
		}
		long start = 0;
		while (true) {
			int current = this.state;
			if (current == OPEN) {
				if (STATE.compareAndSet(this, OPEN, HELPING)) {
					finishIfDone(joined);
					return;
				}
			}
			else if (current != POLLING) {
				// Another joiner finishes it, or it is finished.
				return;
			}
			else if (start == 0) {
				start = System.nanoTime();
			}
			else if (System.nanoTime() - start > JOINER_SPIN_NANOS) {
				return;
			}
			Thread.onSpinWait();
		}
	}

	/**
	 * A joiner's wait for the session's work, which it leaves as soon as the future it
	 * waits for is done otherwise (its own timeout, a cancellation, a completion from
	 * outside): a driver's synchronize could not be left, so it queries the stream
	 * between spin waits, as the driver's synchronize spins on a processor of its own
	 * (the context's default scheduling while the processors outnumber the contexts).
	 * Where the device's work runs on this machine's processors (the host backend), which
	 * a spinning joiner would take from it, the joiner parks until the completion thread
	 * sees the stream idle or the future is done.
	 * @return whether the work is done; {@code false} if the joiner left it running
	 * @throws RuntimeException the work's failure
	 */
	private boolean awaitWorkUnlessDone(CompletableFuture<?> joined) {
		if (this.completions.runsWorkOnHostProcessors()) {
			return SessionWaits.awaitIdleUnless(this.completions, this.stream::query, this.future.outcomeOr(joined));
		}
		while (!this.stream.query()) {
			if (joined.isDone()) {
				return false;
			}
			Thread.onSpinWait();
		}
		return true;
	}

}
