package dev.offload.internal.completion;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;

/**
 * Bounds a session's asynchronous work by its deadline: a future that fails with the
 * session's timeout (a {@code SessionTimeoutException}) when the deadline passes before
 * the work's own future completes. One daemon timer thread serves every pending deadline
 * of the JVM (a pending deadline costs a queue entry, removed when its work completes
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
			bound.expiry = Timer.INSTANCE.schedule(bound, remainingNanos, TimeUnit.NANOSECONDS);
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
		// executor, as for every future Offload completes.
		this.executor.execute(() -> this.bounded.completeExceptionally(timeout));
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

	/**
	 * The JVM's one deadline timer, started on first use.
	 */
	private static final class Timer {

		static final ScheduledThreadPoolExecutor INSTANCE = create();

		private static ScheduledThreadPoolExecutor create() {
			ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "offload-session-deadlines");
				thread.setDaemon(true);
				return thread;
			});
			// A deadline whose work completed first leaves the queue at once: many
			// long timeouts in flight do not accumulate.
			timer.setRemoveOnCancelPolicy(true);
			return timer;
		}

	}

}
