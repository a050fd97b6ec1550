package dev.offload.internal.completion;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.VirtualThreads;

/**
 * The future of asynchronous device work ({@code OffloadSession.closeAsync()},
 * {@code OffloadSession.whenDone()}) that the device's completion thread settles without
 * ever running a dependent stage.
 * <p>
 * Its outcome is decided in two steps. The completion thread <em>settles</em> it: the
 * outcome is kept in an inner future that nobody else sees, and the threads waiting in
 * {@link #join()} or {@link #get()} wait on that inner future, so they wake at once,
 * without an executor hop. The outcome is then <em>published</em> to this future itself,
 * on the completion executor or by a thread that waits (below), and only publishing runs
 * the dependent stages ({@code thenApply}, {@code whenComplete}, the relays of
 * {@code allOf}): whatever is registered, and however it races with the completion, no
 * dependent stage runs on the completion thread. The completion thread publishes in
 * batches, one executor task per sweep of its pending work; a future with dependent
 * stages gets an executor task of its own, so that a continuation that blocks delays no
 * other.
 * <p>
 * Between settling and publishing, {@link #isDone()}, {@link #getNow} and the like answer
 * from the outcome already decided. A thread that waits in {@link #join()} or
 * {@link #get()} publishes the outcome itself once it has it, on its own thread, so that
 * it does not wait for the executor to run what it waits for. The same holds for the
 * futures of dependent stages ({@code thenApply(...).join()}) and for the futures made
 * with {@link #newIncompleteFuture()}: a thread that waits for one of them publishes this
 * future first, which runs the stages that lead to it on the waiting thread (as a plain
 * {@link CompletableFuture} runs its dependents on the thread that completes it). Such a
 * thread waits for the outcome or for the stage it waits for, whichever completes first:
 * a stage completed otherwise (its own timeout, a cancellation) ends its wait at once.
 * Completing it from outside ({@link #complete}, {@link #completeExceptionally},
 * {@link #cancel}, the timeouts) decides the outcome first as well, then publishes on the
 * calling thread. Dependent stages registered without an executor ({@code thenApply}) run
 * on the thread that publishes; the {@code *Async} ones without an executor run on the
 * completion executor.
 *
 * @param <T> the value's type
 */
final class CompletionFuture<T> extends CompletableFuture<T> {

	private final CompletableFuture<T> outcome = new CompletableFuture<>();

	private final Executor executor;

	private final boolean spinBeforeParking;

	/**
	 * What a platform thread in {@link #join()} runs instead of waiting to be woken: it
	 * waits for the work itself and settles this future (a session's
	 * {@code closeAsync()}); {@code null} for none.
	 */
	private volatile @Nullable JoinHelper helper;

	CompletionFuture(Executor executor) {
		this(executor, true);
	}

	/**
	 * Creates a future.
	 * @param executor the completion executor
	 * @param spinBeforeParking whether a joiner spins and yields before it parks: not
	 * where the device's work runs on this machine's processors (the host backend), which
	 * a spinning joiner would take from it
	 */
	CompletionFuture(Executor executor, boolean spinBeforeParking) {
		this.executor = executor;
		this.spinBeforeParking = spinBeforeParking;
	}

	/**
	 * Decides the outcome and wakes the threads waiting for it, without running a
	 * dependent stage: what the completion thread calls, before it has the future
	 * {@linkplain #publish() published}.
	 * @param value the value if {@code failure} is {@code null}
	 * @param failure the failure, or {@code null}
	 * @return {@code true} if this decided the outcome
	 */
	boolean settle(@Nullable T value, @Nullable Throwable failure) {
		return (failure != null) ? this.outcome.completeExceptionally(failure) : this.outcome.complete(value);
	}

	/**
	 * Completes this future with the outcome decided, running its dependent stages on the
	 * calling thread; a no-op if it is published already or not decided yet.
	 */
	void publish() {
		if (super.isDone() || !this.outcome.isDone()) {
			return;
		}
		this.outcome.whenComplete(this::publishOutcome);
	}

	private void publishOutcome(@Nullable T value, @Nullable Throwable failure) {
		if (failure != null) {
			super.completeExceptionally(failure);
		}
		else {
			super.complete(value);
		}
	}

	@Override
	public boolean complete(@Nullable T value) {
		boolean decided = this.outcome.complete(value);
		publish();
		return decided;
	}

	@Override
	public boolean completeExceptionally(Throwable ex) {
		boolean decided = this.outcome.completeExceptionally(Objects.requireNonNull(ex, "ex must not be null"));
		publish();
		return decided;
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean decided = this.outcome.cancel(mayInterruptIfRunning);
		publish();
		return decided || isCancelled();
	}

	@Override
	public void obtrudeValue(@Nullable T value) {
		this.outcome.obtrudeValue(value);
		super.obtrudeValue(value);
	}

	@Override
	public void obtrudeException(Throwable ex) {
		this.outcome.obtrudeException(ex);
		super.obtrudeException(ex);
	}

	@Override
	public boolean isDone() {
		return super.isDone() || this.outcome.isDone();
	}

	@Override
	public boolean isCancelled() {
		return super.isDone() ? super.isCancelled() : this.outcome.isCancelled();
	}

	@Override
	public boolean isCompletedExceptionally() {
		return super.isDone() ? super.isCompletedExceptionally() : this.outcome.isCompletedExceptionally();
	}

	@Override
	public T getNow(@Nullable T valueIfAbsent) {
		return super.isDone() ? super.getNow(valueIfAbsent) : this.outcome.getNow(valueIfAbsent);
	}

	/**
	 * Has platform threads that {@link #join()} run {@code helper} first.
	 * @param helper waits for the work and settles this future, or returns early if the
	 * completion thread did; never throws
	 */
	void helpWith(JoinHelper helper) {
		this.helper = helper;
	}

	@Override
	public T join() {
		if (super.isDone()) {
			return super.join();
		}
		awaitOutcome(this);
		publish();
		return super.join();
	}

	@Override
	public T get() throws InterruptedException, ExecutionException {
		if (super.isDone()) {
			return super.get();
		}
		awaitOutcomeInterruptibly(this);
		publish();
		return super.get();
	}

	@Override
	public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
		if (super.isDone()) {
			return super.get(timeout, unit);
		}
		long deadline = System.nanoTime() + unit.toNanos(timeout);
		awaitOutcome(this, deadline);
		publish();
		return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	/**
	 * Waits for the outcome as {@link #join()} does, or until {@code awaited} completes
	 * otherwise: a platform thread runs the {@linkplain #helpWith helper} first, then
	 * spins briefly, then parks.
	 * @param awaited the future the caller waits for: this one, or a stage made from it
	 * ({@link Dependent}), which may complete before the outcome is decided (its own
	 * timeout, a cancellation, a completion from outside)
	 */
	private void awaitOutcome(CompletableFuture<?> awaited) {
		// Not in get(): a thread waiting in the driver cannot be interrupted.
		JoinHelper help = VirtualThreads.isCurrentThreadVirtual() ? null : this.helper;
		help(help, false, awaited);
		awaitBriefly(awaited);
		// Still not done after the brief wait: long work, which the completion thread
		// watches with growing pauses; the joiner may wait for it itself.
		help(help, true, awaited);
		if (isDecidedOrDone(awaited)) {
			return;
		}
		try {
			outcomeOr(awaited).join();
		}
		catch (RuntimeException ex) {
			// A failure: published below.
		}
	}

	private void help(@Nullable JoinHelper help, boolean late, CompletableFuture<?> awaited) {
		if (help == null || isDecidedOrDone(awaited)) {
			return;
		}
		try {
			help.help(late, awaited);
		}
		catch (RuntimeException ex) {
			// The outcome is settled all the same (the completion thread reports what
			// went wrong): wait for it.
		}
	}

	private void awaitOutcomeInterruptibly(CompletableFuture<?> awaited) throws InterruptedException {
		awaitBriefly(awaited);
		if (isDecidedOrDone(awaited)) {
			return;
		}
		try {
			outcomeOr(awaited).get();
		}
		catch (ExecutionException | RuntimeException ex) {
			// A failure: published below.
		}
	}

	/**
	 * Waits for the outcome until {@code deadline} ({@link System#nanoTime()}), or until
	 * {@code awaited} completes otherwise.
	 * @throws TimeoutException if the deadline passes first
	 */
	private void awaitOutcome(CompletableFuture<?> awaited, long deadline)
			throws InterruptedException, TimeoutException {
		if (isDecidedOrDone(awaited)) {
			return;
		}
		try {
			outcomeOr(awaited).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | RuntimeException ex) {
			// A failure: published below.
		}
	}

	/**
	 * Tells whether the outcome is decided or {@code awaited} is done: the end of a
	 * joiner's wait. Reads only: this future's own completions from outside decide the
	 * outcome, a dependent stage's do not.
	 */
	private boolean isDecidedOrDone(CompletableFuture<?> awaited) {
		return this.outcome.isDone() || (awaited != this && awaited.isDone());
	}

	/**
	 * Returns a future that completes once the outcome is decided or {@code awaited}
	 * completes, whichever comes first: the one to park on. The outcome itself for this
	 * future; for a stage made from it, the stage's {@link Dependent#outcomeOrDone()},
	 * made once for all its waiters.
	 * @param awaited this future, or a stage made from it
	 */
	CompletableFuture<?> outcomeOr(CompletableFuture<?> awaited) {
		return (awaited instanceof Dependent<?> stage) ? stage.outcomeOrDone() : this.outcome;
	}

	/**
	 * Spins, then yields, for a short while before the caller parks, unless it is a
	 * virtual thread (whose spinning would hold its carrier) or the device's work runs on
	 * this machine's processors.
	 */
	private void awaitBriefly(CompletableFuture<?> awaited) {
		if (!this.spinBeforeParking || isDecidedOrDone(awaited) || VirtualThreads.isCurrentThreadVirtual()) {
			return;
		}
		long start = System.nanoTime();
		long waited;
		do {
			Thread.onSpinWait();
			if (isDecidedOrDone(awaited)) {
				return;
			}
			waited = System.nanoTime() - start;
		}
		while (waited < CompletionTuning.JOINER_SPIN_NANOS);
		while (waited < CompletionTuning.JOINER_YIELD_NANOS && !isDecidedOrDone(awaited)) {
			Thread.yield();
			waited = System.nanoTime() - start;
		}
	}

	/**
	 * What a platform thread that joins the future may do instead of waiting to be woken:
	 * wait for the work itself and settle the future.
	 */
	@FunctionalInterface
	interface JoinHelper {

		/**
		 * Helps, or declines to. A helper that waits for the work leaves its wait as soon
		 * as {@code awaited} is done (see {@link CompletionFuture#outcomeOr}), leaving
		 * the work to the completion thread.
		 * @param late {@code false} when the thread starts to wait, {@code true} once it
		 * has waited briefly ({@link CompletionTuning#JOINER_YIELD_NANOS}) and the future
		 * is still pending
		 * @param awaited the future the thread waits for: this one, or a stage made from
		 * it, which may complete first (its own timeout, a cancellation)
		 */
		void help(boolean late, CompletableFuture<?> awaited);

	}

	/**
	 * Returns the completion executor: the {@code *Async} stages without an executor run
	 * there.
	 */
	@Override
	public Executor defaultExecutor() {
		return this.executor;
	}

	/**
	 * Returns a new incomplete future whose waiters publish this one first: the futures
	 * of dependent stages, and those made for results computed from this one's outcome.
	 */
	@Override
	public <U> CompletableFuture<U> newIncompleteFuture() {
		return new Dependent<>(this);
	}

	@Override
	public String toString() {
		return super.isDone() ? super.toString() : "CompletionFuture[" + (this.outcome.isDone() ? "settled" : "pending")
				+ ", " + getNumberOfDependents() + " dependents]";
	}

	/**
	 * Returns a new incomplete future as {@code work.newIncompleteFuture()} does, but
	 * whose waiters wait for the outcome of {@code work}'s source only until
	 * {@code deadlineNanos} ({@link System#nanoTime()}), and never in the driver: the
	 * future of work bounded by a deadline, which may fail before the work ends.
	 */
	static <T> CompletableFuture<T> newBoundedFuture(CompletableFuture<?> work, long deadlineNanos) {
		CompletionFuture<?> source = (work instanceof CompletionFuture<?> future) ? future
				: (work instanceof Dependent<?> dependent) ? dependent.source : null;
		return (source != null) ? new Dependent<>(source, true, deadlineNanos) : new CompletableFuture<>();
	}

	/**
	 * A future completed, directly or through other stages, from a
	 * {@link CompletionFuture}'s outcome: a thread that waits for it in {@code join()} or
	 * {@code get()} waits for the source's outcome and publishes it first, so that the
	 * stages leading here run on the waiting thread instead of waking it from the
	 * completion executor. Stages that run elsewhere (an {@code *Async} stage, another
	 * future) are waited for as by a plain future. {@code *Async} stages without an
	 * executor run on the common pool, as a plain future's do. A bounded one (the future
	 * of work with a deadline) waits for the source only until its deadline.
	 *
	 * @param <U> the value's type
	 */
	static final class Dependent<U> extends CompletableFuture<U> {

		@SuppressWarnings("rawtypes")
		private static final AtomicReferenceFieldUpdater<Dependent, CompletableFuture> OUTCOME_OR_DONE = AtomicReferenceFieldUpdater
			.newUpdater(Dependent.class, CompletableFuture.class, "outcomeOrDone");

		private final CompletionFuture<?> source;

		private final boolean bounded;

		private final long deadlineNanos;

		/**
		 * Completed once the source's outcome is decided or this stage completes: what
		 * its waiters park on, made by the first that parks.
		 */
		private volatile @Nullable CompletableFuture<Void> outcomeOrDone;

		Dependent(CompletionFuture<?> source) {
			this(source, false, 0);
		}

		private Dependent(CompletionFuture<?> source, boolean bounded, long deadlineNanos) {
			this.source = source;
			this.bounded = bounded;
			this.deadlineNanos = deadlineNanos;
		}

		@Override
		public U join() {
			if (!isDone()) {
				if (!this.bounded) {
					this.source.awaitOutcome(this);
				}
				else if (!awaitBoundedUninterruptibly()) {
					return super.join();
				}
				this.source.publish();
			}
			return super.join();
		}

		@Override
		public U get() throws InterruptedException, ExecutionException {
			if (!isDone()) {
				if (!this.bounded) {
					this.source.awaitOutcomeInterruptibly(this);
				}
				else if (!awaitBounded(this.deadlineNanos)) {
					return super.get();
				}
				this.source.publish();
			}
			return super.get();
		}

		@Override
		public U get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
			if (isDone()) {
				return super.get(timeout, unit);
			}
			long deadline = System.nanoTime() + unit.toNanos(timeout);
			if (!this.bounded || deadline - this.deadlineNanos < 0) {
				this.source.awaitOutcome(this, deadline);
				this.source.publish();
			}
			else if (awaitBounded(this.deadlineNanos)) {
				this.source.publish();
			}
			return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}

		/**
		 * Waits for the source's outcome until {@code deadline}.
		 * @return whether the outcome is there
		 */
		private boolean awaitBounded(long deadline) throws InterruptedException {
			try {
				this.source.awaitOutcome(this, deadline);
				return true;
			}
			catch (TimeoutException ex) {
				return false;
			}
		}

		private boolean awaitBoundedUninterruptibly() {
			try {
				return awaitBounded(this.deadlineNanos);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		/**
		 * Returns a future completed once the source's outcome is decided or this stage
		 * completes, whichever comes first: a thread that waits for this stage and has to
		 * park parks on it, so that it wakes when the stage completes otherwise than from
		 * the outcome (its own timeout, a cancellation, a completion from outside) as
		 * well. Made once, by the first waiter that parks; neither side runs more than
		 * its completion (the completion thread, settling the outcome, only wakes the
		 * waiters).
		 */
		CompletableFuture<Void> outcomeOrDone() {
			CompletableFuture<Void> either = this.outcomeOrDone;
			if (either != null) {
				return either;
			}
			CompletableFuture<Void> made = new CompletableFuture<>();
			if (!OUTCOME_OR_DONE.compareAndSet(this, null, made)) {
				return Objects.requireNonNull(this.outcomeOrDone, "set by the thread that won");
			}
			this.source.outcome.whenComplete((value, failure) -> made.complete(null));
			whenComplete((value, failure) -> made.complete(null));
			return made;
		}

		@Override
		public <V> CompletableFuture<V> newIncompleteFuture() {
			return new Dependent<>(this.source, this.bounded, this.deadlineNanos);
		}

	}

}
