package dev.offload.internal.completion;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendStream;

/**
 * A device's completion engine, the one door of this package: the completion thread that
 * watches sessions' streams and events (started on first use), the futures it completes
 * (their dependent stages run on the completion executor, never on that thread), the
 * asynchronous close of sessions and the help of their joiners, the waits of a session's
 * caller, deadlines on asynchronous work, and the device's event pool. The device and its
 * sessions talk to this type only; what it needs of them (a session's ending, the
 * device's open sessions, its sticky failures, the failure of work cut short by shutdown)
 * it takes as callbacks. Not API.
 */
public final class Completions {

	private final int deviceId;

	private final Executor executor;

	private final boolean workOnHostProcessors;

	private final EventPool events;

	private final IntSupplier activeSessions;

	private final Consumer<Throwable> workFailed;

	private final CompletionFailures failures;

	/** Threads that join sessions' futures and wait for the work in the driver. */
	private final AtomicInteger joinersInDriver = new AtomicInteger();

	private volatile @Nullable CompletionPoller poller;

	/**
	 * Creates a device's completion engine.
	 * @param deviceId the device's id, for thread names and messages
	 * @param executor the registry's completion executor, where dependent stages run
	 * @param workOnHostProcessors whether the device's work runs on this machine's
	 * processors (the host backend), which a thread spinning for it would take from it
	 * @param backendDevice the device that creates events
	 * @param activeSessions the device's sessions opened and not yet ended
	 * @param workFailed told the failure of watched work (the device fails on a sticky
	 * one)
	 * @param failures makes the exceptions of work cut short by shutdown and of checked
	 * failures
	 */
	public Completions(int deviceId, Executor executor, boolean workOnHostProcessors, BackendDevice backendDevice,
			IntSupplier activeSessions, Consumer<Throwable> workFailed, CompletionFailures failures) {
		this.deviceId = deviceId;
		this.executor = executor;
		this.workOnHostProcessors = workOnHostProcessors;
		this.events = new EventPool(backendDevice);
		this.activeSessions = activeSessions;
		this.workFailed = workFailed;
		this.failures = failures;
		SessionWaits.initializeVirtualThreadWaits();
	}

	/**
	 * Waits until {@code stream} is idle, throwing its work's failure: in the driver on a
	 * platform thread, parked until the completion thread sees it idle on a virtual one.
	 * @param stream the session's stream
	 */
	public void awaitIdle(BackendStream stream) {
		SessionWaits.awaitIdle(this, stream);
	}

	/**
	 * Waits until {@code stream} is idle or {@code deadline} passes, throwing its work's
	 * failure; the completion thread watches the stream meanwhile.
	 * @param stream the session's stream
	 * @param deadline the session's deadline
	 * @return {@code false} if the deadline passed first
	 * @throws InterruptedException if the thread was interrupted
	 */
	public boolean awaitIdle(BackendStream stream, SessionDeadline deadline) throws InterruptedException {
		return SessionWaits.awaitIdle(this, stream, deadline);
	}

	/**
	 * Parks the calling thread until {@code done} answers {@code true}, polled by the
	 * completion thread: the wait of a virtual thread for an event.
	 * @param done whether the awaited work is done; may throw its failure
	 */
	public void parkUntil(BooleanSupplier done) {
		SessionWaits.parkUntil(this, done);
	}

	/**
	 * Returns a failure of a session's work as an unchecked exception.
	 * @param failure the failure
	 * @return the failure itself if unchecked, else the
	 * {@linkplain CompletionFailures#workFailed failure} around it
	 */
	public RuntimeException unchecked(@Nullable Throwable failure) {
		return (failure instanceof RuntimeException runtime) ? runtime : this.failures.workFailed(failure);
	}

	/**
	 * Borrows an event of the device's pool.
	 * @return the event
	 */
	public BackendEvent borrowEvent() {
		return this.events.borrow();
	}

	/**
	 * Gives an event back to the device's pool.
	 * @param event the event, as borrowed
	 */
	public void releaseEvent(BackendEvent event) {
		this.events.release(event);
	}

	/**
	 * Returns the events lent now.
	 * @return the number in use
	 */
	public int eventsInUse() {
		return this.events.inUse();
	}

	/**
	 * Borrows an event, has {@code record} record it on a session's stream, and has the
	 * completion thread watch it: the future completes once it is reached, or with the
	 * failure of the work before it, and the event goes back to the pool then.
	 * @param record records the event after the work enqueued so far; the event goes back
	 * to the pool if it throws
	 * @return the future, whose dependent stages run on the completion executor
	 */
	public CompletableFuture<Void> whenReached(Consumer<BackendEvent> record) {
		BackendEvent event = this.events.borrow();
		try {
			record.accept(event);
		}
		catch (RuntimeException ex) {
			this.events.release(event);
			throw ex;
		}
		CompletionFuture<Void> reached = newFuture();
		CompletionPoller watcher = poller();
		watcher.submit(new CompletionPoller.Task() {

			@Override
			public boolean poll() {
				boolean done;
				try {
					done = event.query();
				}
				catch (RuntimeException ex) {
					Completions.this.workFailed.accept(ex);
					Completions.this.events.release(event);
					watcher.complete(reached, ex);
					return true;
				}
				if (done) {
					Completions.this.events.release(event);
					watcher.complete(reached, null);
				}
				return done;
			}

			@Override
			public void abandon(String reason) {
				// The event stays recorded on a stream that is still lent: it is not
				// given back to the pool.
				watcher.complete(reached, shutDown("Device " + Completions.this.deviceId + " was " + reason));
			}

		});
		return reached;
	}

	/**
	 * Ends a session without blocking once its work is done: the completion thread
	 * watches {@code pendingWork} and ends the session, or a platform thread that joins
	 * the future waits for the work in the driver and ends it itself, as the joiner rules
	 * allow. With no work pending, the session ends at once on the calling thread.
	 * @param sessionId the session's id, for messages
	 * @param pendingWork the session's stream if work may run on it, else {@code null}
	 * @param session how the session ends
	 * @return the future of the session's end, with its outcome
	 */
	public CompletableFuture<Void> closeAsync(long sessionId, @Nullable BackendStream pendingWork, SessionEnd session) {
		CompletionFuture<Void> future = newFuture();
		if (pendingWork == null) {
			Throwable outcome = session.outcome(null);
			AsyncClose.finish(this, session, future, outcome, outcome, false);
			return future;
		}
		AsyncClose close = new AsyncClose(this, sessionId, pendingWork, session, future);
		future.helpWith(close::finishForJoiner);
		poller().submit(close);
		return future;
	}

	/**
	 * Hands a session whose caller stopped waiting (its deadline passed) to the
	 * completion thread, which ends it once the work enqueued so far is done.
	 * @param sessionId the session's id, for messages
	 * @param stream the session's stream
	 * @param session how the session ends
	 * @return the future of the session's end
	 */
	public CompletableFuture<Void> handOff(long sessionId, BackendStream stream, SessionEnd session) {
		CompletionFuture<Void> future = newFuture();
		poller().submit(new AsyncClose(this, sessionId, stream, session, future));
		return future;
	}

	/**
	 * Bounds asynchronous work by a session's deadline.
	 * @param <T> the work's result type
	 * @param deadline the session's deadline
	 * @param work the future of the work
	 * @param expired makes the failure of the bounded future from the nanoseconds waited,
	 * on the deadline timer's thread; the future fails with it on the completion executor
	 * @return {@code work} if it is done, else a future with its outcome or the failure
	 * once the deadline passes first
	 */
	public <T> CompletableFuture<T> withinDeadline(SessionDeadline deadline, CompletableFuture<T> work,
			LongFunction<RuntimeException> expired) {
		return AsyncDeadline.bound(this.executor, deadline, work, expired);
	}

	/**
	 * Returns the registry's completion executor.
	 * @return the executor
	 */
	public Executor executor() {
		return this.executor;
	}

	/**
	 * Returns the sessions and events handed to the completion thread and not yet done.
	 * @return the count
	 */
	public int pending() {
		CompletionPoller watcher = this.poller;
		return (watcher != null) ? watcher.outstanding() : 0;
	}

	/**
	 * Returns how many threads that join sessions' futures wait in the driver now.
	 * @return the count
	 */
	public int joinersInDriver() {
		return this.joinersInDriver.get();
	}

	/**
	 * Counts a thread that joins a session's future and waits for its work in the driver,
	 * until {@link #joinerLeftDriver()}.
	 */
	public void joinerEnteredDriver() {
		this.joinersInDriver.incrementAndGet();
	}

	/** Counts a joiner out of the driver. */
	public void joinerLeftDriver() {
		this.joinersInDriver.decrementAndGet();
	}

	/**
	 * Returns the completion thread.
	 * @return the thread, or {@code null} if nothing was handed to it yet
	 */
	public @Nullable Thread thread() {
		CompletionPoller watcher = this.poller;
		return (watcher != null) ? watcher.thread() : null;
	}

	/**
	 * Stops the completion thread once everything handed to it is done and waits for it
	 * to end, then destroys the idle events. Called once every session ended: what the
	 * thread still watches (the event of a {@code whenDone()} whose session ended) is
	 * done, so the wait is short; it is what keeps the thread's last query from reaching
	 * the driver after the device released its context. Past
	 * {@link CompletionTuning#ABANDON_JOIN_MILLIS}, what is left is abandoned.
	 * @return {@code true} if the thread ended (or never started), so that nothing of
	 * this device's is queried any more
	 */
	public boolean stop() {
		CompletionPoller watcher = this.poller;
		if (watcher != null && !watcher.stopAndAwait()) {
			return false;
		}
		this.events.close();
		return true;
	}

	/**
	 * Stops the completion thread now: what it watches and is not done fails with the
	 * shutdown failure and {@code reason}. Events stay, as the streams they are recorded
	 * on.
	 * @param reason why, such as "shut down before its work finished"
	 */
	public void stopAndAbandon(String reason) {
		CompletionPoller watcher = this.poller;
		if (watcher != null) {
			watcher.stopAndAbandon(reason);
		}
	}

	int deviceId() {
		return this.deviceId;
	}

	int activeSessions() {
		return this.activeSessions.getAsInt();
	}

	boolean runsWorkOnHostProcessors() {
		return this.workOnHostProcessors;
	}

	RuntimeException shutDown(String message) {
		return this.failures.shutDown(message);
	}

	CompletionFuture<Void> newFuture() {
		return new CompletionFuture<>(this.executor, !this.workOnHostProcessors);
	}

	/**
	 * Settles {@code future} and has its dependent stages run on the completion executor.
	 */
	void complete(CompletionFuture<?> future, @Nullable Throwable failure) {
		poller().complete(future, failure);
	}

	CompletionPoller poller() {
		CompletionPoller watcher = this.poller;
		if (watcher == null) {
			synchronized (this) {
				watcher = this.poller;
				if (watcher == null) {
					watcher = new CompletionPoller(this.deviceId, this.executor);
					this.poller = watcher;
				}
			}
		}
		return watcher;
	}

	/**
	 * How a session ends once its work is done, for {@link #closeAsync} and
	 * {@link #handOff}.
	 */
	public interface SessionEnd {

		/**
		 * Records the failure of the session's work, if any, and returns the outcome of
		 * its end.
		 * @param workFailure the work's failure, or {@code null} if it succeeded
		 * @return the failure the session's future completes with, or {@code null}
		 */
		@Nullable Throwable outcome(@Nullable Throwable workFailure);

		/**
		 * Gives the session's stream back (discarded after {@code streamFailure}), its
		 * events, buffers and memory reservation, and reports the end.
		 * @param outcome the outcome, as {@link #outcome} returned it
		 * @param streamFailure the failure of the stream's work, or {@code null}
		 */
		void end(@Nullable Throwable outcome, @Nullable Throwable streamFailure);

	}

}
