package dev.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread per device that watches asynchronous work: it polls each pending session's stream
 * ({@link OffloadSession#closeAsync()}) and each watched event ({@link OffloadSession#whenDone()}), and finishes what
 * is done, so no thread blocks per session. It runs no user code: the futures it finishes are completed on the
 * registry's completion executor, so a continuation that blocks cannot stall it.
 * <p>
 * Polling beats host callbacks here: on an H200 a {@code cuStreamQuery} costs about 9 µs from launch to seen done,
 * a {@code cuLaunchHostFunc} completion 40-65 µs. With nothing done it backs off: spins, then yields, then parks for
 * up to {@link #MAX_PARK_NANOS}; with nothing pending it spins {@link #IDLE_SPIN_NANOS}, then parks until the next
 * submission.
 */
final class CompletionPoller implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(CompletionPoller.class);

	static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	static final long IDLE_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	private static final int SPIN_ROUNDS = 200;

	private static final int YIELD_ROUNDS = 400;

	private final ConcurrentLinkedQueue<BooleanSupplier> submitted = new ConcurrentLinkedQueue<>();

	private final List<BooleanSupplier> pending = new ArrayList<>();

	private final Thread thread;

	private volatile boolean stopped;

	CompletionPoller(int deviceId) {
		this.thread = new Thread(this, "offload-device" + deviceId + "-completion");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Watches work until {@code poll} says it is finished.
	 * @param poll called on the completion thread until it returns {@code true} (or throws); it must not block
	 */
	void submit(BooleanSupplier poll) {
		this.submitted.add(poll);
		LockSupport.unpark(this.thread);
	}

	Thread thread() {
		return this.thread;
	}

	void stop() {
		this.stopped = true;
		LockSupport.unpark(this.thread);
	}

	@Override
	public void run() {
		int idleRounds = 0;
		while (!this.stopped || !this.pending.isEmpty() || !this.submitted.isEmpty()) {
			boolean progress = takeSubmitted();
			progress |= pollPending();
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
	 * Spins for up to {@link #IDLE_SPIN_NANOS} before parking: sessions often close back to back, and waking a parked
	 * thread costs several microseconds, measured on an H200 as a closeAsync completion p50 of 15.0 µs against 9.4 µs
	 * for a synchronous close.
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
		BooleanSupplier poll;
		while ((poll = this.submitted.poll()) != null) {
			this.pending.add(poll);
			any = true;
		}
		return any;
	}

	private boolean pollPending() {
		boolean progress = false;
		for (int i = this.pending.size() - 1; i >= 0; i--) {
			boolean done;
			try {
				done = this.pending.get(i).getAsBoolean();
			}
			catch (Throwable ex) {
				logger.error("Completing asynchronous work failed; dropping it", ex);
				done = true;
			}
			if (done) {
				int last = this.pending.size() - 1;
				this.pending.set(i, this.pending.get(last));
				this.pending.remove(last);
				progress = true;
			}
		}
		return progress;
	}

	private static void backOff(int idleRounds) {
		if (idleRounds < SPIN_ROUNDS) {
			Thread.onSpinWait();
		}
		else if (idleRounds < YIELD_ROUNDS) {
			Thread.yield();
		}
		else {
			long nanos = Math.min(MAX_PARK_NANOS, 1000L << Math.min(20, (idleRounds - YIELD_ROUNDS) / 8));
			LockSupport.parkNanos(nanos);
		}
	}

}
