package dev.offload.internal.completion;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.DeadlineTimer;
import dev.offload.internal.SessionDeadline;

/**
 * Bounds a session's asynchronous work by its deadline: a future that fails with the
 * session's timeout (a {@code SessionTimeoutException}) when the deadline passes before
 * the work's own future completes. The JVM's {@link DeadlineTimer} serves every pending
 * deadline (a pending deadline costs a queue entry, removed when its work completes
 * first); it never completes a future itself but hands the completion to the registry's
 * completion executor, so that user continuations never run on the timer.
 */
final class AsyncDeadline<T> implements Runnable {

	private final Executor executor;

	private final LongFunction<RuntimeException> expired;

	private final CompletableFuture<T> bounded;

	private final AtomicBoolean decided = new AtomicBoolean();

	private final long startNanos = System.nanoTime();

	private volatile @Nullable ScheduledFuture<?> expiry;

	private AsyncDeadline(Executor executor, SessionDeadline deadline, CompletableFuture<T> work,
			LongFunction<RuntimeException> expired) {
		this.executor = executor;
		this.expired = expired;
		// A thread that waits for it publishes the work's outcome itself, if the work's
		// future lets it, until the deadline.
		this.bounded = CompletionFuture.newBoundedFuture(work, this.startNanos + deadline.remainingNanos());
	}

	/**
	 * Returns a future with {@code work}'s outcome, or failing with what {@code expired}
	 * makes of the time waited if {@code deadline} passes first; completed on
	 * {@code executor} then.
	 */
	static <T> CompletableFuture<T> bound(Executor executor, SessionDeadline deadline, CompletableFuture<T> work,
			LongFunction<RuntimeException> expired) {
		if (work.isDone()) {
			return work;
		}
		AsyncDeadline<T> bound = new AsyncDeadline<>(executor, deadline, work, expired);
		long remainingNanos = deadline.remainingNanos();
		if (remainingNanos <= 0) {
			bound.run();
		}
		else {
			bound.expiry = DeadlineTimer.schedule(bound, remainingNanos);
		}
		work.whenComplete(bound::workCompleted);
		return bound.bounded;
	}

	/**
	 * The deadline passed: fails the future unless the work completed first.
	 */
	@Override
	public void run() {
		if (!this.decided.compareAndSet(false, true)) {
			return;
		}
		RuntimeException timeout = this.expired.apply(System.nanoTime() - this.startNanos);
		// Never on the timer's thread: the future's continuations run on the completion
		// executor, as for every future Offload completes (on a thread of its own if the
		// executor was shut down first).
		DeadlineTimer.execute(this.executor, () -> this.bounded.completeExceptionally(timeout),
				"offload-deadline-fallback");
	}

	private void workCompleted(T value, Throwable failure) {
		if (!this.decided.compareAndSet(false, true)) {
			return;
		}
		ScheduledFuture<?> pending = this.expiry;
		if (pending != null) {
			pending.cancel(false);
		}
		if (failure != null) {
			this.bounded.completeExceptionally(failure);
		}
		else {
			this.bounded.complete(value);
		}
	}

}
