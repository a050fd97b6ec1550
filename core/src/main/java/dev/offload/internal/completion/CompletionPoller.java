package dev.offload.internal.completion;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.DeadlineTimer;

import static dev.offload.internal.completion.CompletionTuning.ABANDON_JOIN_MILLIS;
import static dev.offload.internal.completion.CompletionTuning.FIRST_PARK_NANOS;
import static dev.offload.internal.completion.CompletionTuning.FULL_SWEEP_EVERY;
import static dev.offload.internal.completion.CompletionTuning.IDLE_SPIN_NANOS;
import static dev.offload.internal.completion.CompletionTuning.MAX_PARK_NANOS;
import static dev.offload.internal.completion.CompletionTuning.NOT_DONE_RUN;
import static dev.offload.internal.completion.CompletionTuning.PARK_DOUBLING_ROUNDS;
import static dev.offload.internal.completion.CompletionTuning.SPIN_ROUNDS;
import static dev.offload.internal.completion.CompletionTuning.YIELD_ROUNDS;

/**
 * The one thread per device that watches asynchronous work: it polls each pending
 * session's stream ({@code OffloadSession.closeAsync()}) and each watched event
 * ({@code OffloadSession.whenDone()}), and finishes what is done, so no thread blocks per
 * session. It runs no user code: it {@linkplain CompletionFuture#settle settles} the
 * futures it finishes, which wakes the threads joining them, and has them
 * {@linkplain CompletionFuture#publish published} to their dependent stages on the
 * registry's completion executor, so a continuation that blocks cannot stall it. It
 * publishes in one executor task per sweep, not one per future (an executor hand-off
 * costs it about a microsecond, and a waking worker more): that task publishes the
 * futures without dependent stages itself and hands each future that has some to an
 * executor task of its own, so that a continuation that blocks delays no other.
 * <p>
 * Polling beats host callbacks here: on an H200 a {@code cuStreamQuery} costs about 9 µs
 * from launch to seen done, a {@code cuLaunchHostFunc} completion 40-65 µs. With nothing
 * done it backs off: spins, then yields, then parks for up to
 * {@link CompletionTuning#MAX_PARK_NANOS}; with nothing pending it spins
 * {@link CompletionTuning#IDLE_SPIN_NANOS}, then parks until the next submission.
 * <p>
 * When the device shuts down before every task is done, the tasks left are looked at once
 * more and those not done are {@linkplain Task#abandon abandoned} (their futures fail),
 * never dropped; a task submitted after the thread ended is handled so at once, on the
 * submitting thread.
 */
final class CompletionPoller implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(CompletionPoller.class);

	private final ConcurrentLinkedQueue<Task> submitted = new ConcurrentLinkedQueue<>();

	private final List<Task> pending = new ArrayList<>();

	private long sweeps;

	private final AtomicInteger outstanding = new AtomicInteger();

	private final List<CompletionFuture<?>> toPublish = new ArrayList<>();

	private final Executor executor;

	private final int deviceId;

	private final Thread thread;

	private volatile boolean stopped;

	private volatile @Nullable String abandonReason;

	private volatile boolean exited;

	CompletionPoller(int deviceId, Executor executor) {
		this.deviceId = deviceId;
		this.executor = executor;
		this.thread = new Thread(this, "offload-device" + deviceId + "-completion");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	void submit(Task task) {
		this.outstanding.incrementAndGet();
		this.submitted.add(task);
		if (this.exited) {
			// The thread ended (the device shut down): nobody else will ever look at this
			// task.
			abandonSubmitted();
		}
		else {
			LockSupport.unpark(this.thread);
		}
	}

	/**
	 * Settles {@code future} and has its dependent stages run on the completion executor:
	 * in this sweep's batch on the completion thread, at once on another thread.
	 * @param future the future
	 * @param failure its failure, or {@code null} for a {@code null} value
	 */
	void complete(CompletionFuture<?> future, @Nullable Throwable failure) {
		future.settle(null, failure);
		if (Thread.currentThread() == this.thread) {
			this.toPublish.add(future);
		}
		else {
			execute(future::publish);
		}
	}

	Thread thread() {
		return this.thread;
	}

	/**
	 * Returns the tasks submitted and not yet done or abandoned.
	 */
	int outstanding() {
		return this.outstanding.get();
	}

	/**
	 * Stops the thread once every task is done.
	 */
	void stop() {
		this.stopped = true;
		LockSupport.unpark(this.thread);
	}

	/**
	 * Stops the thread once every task is done and waits for it to end; past
	 * {@link CompletionTuning#ABANDON_JOIN_MILLIS}, the tasks left are abandoned.
	 * @return {@code true} if the thread ended
	 */
	boolean stopAndAwait() {
		stop();
		if (Thread.currentThread() == this.thread) {
			return false;
		}
		try {
			this.thread.join(ABANDON_JOIN_MILLIS);
			if (this.thread.isAlive()) {
				stopAndAbandon("shut down before its work finished");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return !this.thread.isAlive();
	}

	/**
	 * Stops the thread now: the tasks not done are abandoned with {@code reason}.
	 * @param reason why, such as "shut down before its work finished"
	 */
	void stopAndAbandon(String reason) {
		this.abandonReason = reason;
		stop();
		if (Thread.currentThread() != this.thread) {
			// The futures left are failed when this returns, so that the caller of
			// shutdown sees them settled.
			try {
				this.thread.join(ABANDON_JOIN_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void run() {
		try {
			sweepUntilStopped();
		}
		catch (Throwable ex) {
			// Nothing else watches this device's work: what is left fails now, and what
			// comes later fails on its submitter's thread, rather than wait for ever.
			logger.error("Device {}: the completion thread failed; the work it watched is abandoned", this.deviceId,
					ex);
			if (this.abandonReason == null) {
				this.abandonReason = "abandoned: the device's completion thread failed (" + ex + ")";
			}
		}
		this.exited = true;
		for (Task task : this.pending) {
			abandon(task);
		}
		this.pending.clear();
		abandonSubmitted();
		publish();
	}

	private void sweepUntilStopped() {
		int idleRounds = 0;
		while (!this.stopped
				|| (this.abandonReason == null && (!this.pending.isEmpty() || !this.submitted.isEmpty()))) {
			boolean progress = takeSubmitted();
			progress |= pollPending();
			publish();
			if (progress) {
				idleRounds = 0;
			}
			else if (this.pending.isEmpty()) {
				awaitSubmission();
			}
			else {
				backOff(idleRounds++);
			}
		}
	}

	/**
	 * Hands the futures settled in this sweep to the completion executor, in one task.
	 */
	private void publish() {
		int count = this.toPublish.size();
		if (count == 0) {
			return;
		}
		CompletionFuture<?>[] batch = this.toPublish.toArray(new CompletionFuture<?>[count]);
		this.toPublish.clear();
		execute(() -> publish(batch));
	}

	/**
	 * Publishes a batch on an executor thread: the futures without dependent stages at
	 * once, each other one in a task of its own (the last here, nothing else waits behind
	 * it).
	 */
	private void publish(CompletionFuture<?>[] batch) {
		CompletionFuture<?> last = null;
		for (CompletionFuture<?> future : batch) {
			if (future.getNumberOfDependents() == 0) {
				future.publish();
			}
			else {
				if (last != null) {
					execute(last::publish);
				}
				last = future;
			}
		}
		if (last != null) {
			last.publish();
		}
	}

	/**
	 * Runs {@code task} on the completion executor; on a thread of its own if the
	 * executor refuses it or throws (shut down before the registry, as when an
	 * application context closes), so that a completion is neither lost nor run on the
	 * completion thread.
	 */
	private void execute(Runnable task) {
		if (!DeadlineTimer.execute(this.executor, task, "offload-device" + this.deviceId + "-completion-fallback")) {
			logger.warn("Device {}: the completion executor refused a completion; completed on a thread of its own",
					this.deviceId);
		}
	}

	private void abandonSubmitted() {
		Task task;
		while ((task = this.submitted.poll()) != null) {
			abandon(task);
		}
	}

	private void abandon(Task task) {
		String reason = this.abandonReason;
		try {
			// A last look: work that finished completes normally, only the rest is
			// failed.
			if (!task.poll()) {
				task.abandon((reason != null) ? reason : "shut down before its work finished");
			}
		}
		catch (Throwable ex) {
			logger.error("Abandoning a completion failed", ex);
		}
		finally {
			this.outstanding.decrementAndGet();
		}
	}

	/**
	 * Spins for up to {@link CompletionTuning#IDLE_SPIN_NANOS} before parking until the
	 * next submission.
	 */
	private void awaitSubmission() {
		long start = System.nanoTime();
		while (!this.stopped && this.submitted.isEmpty()) {
			if (System.nanoTime() - start > IDLE_SPIN_NANOS) {
				LockSupport.park(this);
				return;
			}
			Thread.onSpinWait();
		}
	}

	private boolean takeSubmitted() {
		boolean any = false;
		Task task;
		while ((task = this.submitted.poll()) != null) {
			this.pending.add(task);
			any = true;
		}
		return any;
	}

	/**
	 * Polls the pending tasks oldest first, keeping their order. Work on a GPU mostly
	 * finishes in the order it was submitted, so after
	 * {@link CompletionTuning#NOT_DONE_RUN} tasks in a row found not done the sweep
	 * stops, except every {@link CompletionTuning#FULL_SWEEP_EVERY}th sweep, which polls
	 * them all: with thousands pending, a sweep costs a few dozen queries instead of one
	 * per task (about 0.3 µs each), and a task that finishes out of order waits at most
	 * that many sweeps.
	 */
	private boolean pollPending() {
		boolean full = ++this.sweeps % FULL_SWEEP_EVERY == 0;
		List<Task> tasks = this.pending;
		int size = tasks.size();
		int kept = 0;
		int notDoneRun = 0;
		int i = 0;
		for (; i < size; i++) {
			if (!full && notDoneRun >= NOT_DONE_RUN) {
				break;
			}
			Task task = tasks.get(i);
			boolean done;
			try {
				done = task.poll();
			}
			catch (Throwable ex) {
				logger.error("Completing asynchronous work failed; dropping it", ex);
				done = true;
			}
			if (done) {
				this.outstanding.decrementAndGet();
				notDoneRun = 0;
			}
			else {
				tasks.set(kept++, task);
				notDoneRun++;
			}
		}
		if (kept == i) {
			return false;
		}
		// Moves the tasks not polled up behind those kept, then drops the rest.
		for (; i < size; i++) {
			tasks.set(kept++, tasks.get(i));
		}
		tasks.subList(kept, size).clear();
		return true;
	}

	private static void backOff(int idleRounds) {
		if (idleRounds < SPIN_ROUNDS) {
			Thread.onSpinWait();
		}
		else if (idleRounds < YIELD_ROUNDS) {
			Thread.yield();
		}
		else {
			long nanos = Math.min(MAX_PARK_NANOS,
					FIRST_PARK_NANOS << Math.min(20, (idleRounds - YIELD_ROUNDS) / PARK_DOUBLING_ROUNDS));
			LockSupport.parkNanos(nanos);
		}
	}

	/**
	 * Something the completion thread watches until it is done.
	 */
	interface Task {

		/**
		 * Checks once, without blocking, and finishes the task if its work is done.
		 * @return {@code true} when finished
		 */
		boolean poll();

		/**
		 * Fails the task because the thread ends before its work was seen done.
		 * @param reason why
		 */
		void abandon(String reason);

	}

}
