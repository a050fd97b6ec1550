package dev.offload.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JVM's one timer of deadlines (a session's asynchronous work, a batched item's wait
 * in its queue), a daemon thread started on first use. A deadline that is cancelled
 * leaves its queue at once, so that many long timeouts in flight do not accumulate. Its
 * tasks only decide: what they complete runs on an executor, never on the timer's thread.
 */
public final class DeadlineTimer {

	private DeadlineTimer() {
	}

	/**
	 * Runs {@code task} on the timer's thread once {@code delayNanos} have passed.
	 * @param task what to run; short, and it must not throw
	 * @param delayNanos the delay in nanoseconds
	 * @return the scheduled task, to cancel
	 */
	public static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		return Holder.INSTANCE.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Runs {@code task} on {@code executor}, or on a daemon thread of its own named
	 * {@code fallbackName} if the executor refuses it or throws (shut down before the
	 * work it completes, as when an application context closes its task executor first),
	 * so that a completion is never lost.
	 * @param executor the executor
	 * @param task the task
	 * @param fallbackName the name of the thread that runs a refused task
	 * @return {@code true} if the executor took the task
	 */
	public static boolean execute(Executor executor, Runnable task, String fallbackName) {
		try {
			executor.execute(task);
			return true;
		}
		catch (RuntimeException ex) {
			// Refused (RejectedExecutionException), or thrown otherwise as it closes.
			Thread fallback = new Thread(task, fallbackName);
			fallback.setDaemon(true);
			fallback.start();
			return false;
		}
	}

	private static final class Holder {

		static final ScheduledThreadPoolExecutor INSTANCE = create();

		private static ScheduledThreadPoolExecutor create() {
			ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "offload-deadlines");
				thread.setDaemon(true);
				return thread;
			});
			timer.setRemoveOnCancelPolicy(true);
			return timer;
		}

	}

}
