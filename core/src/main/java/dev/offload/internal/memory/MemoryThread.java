package dev.offload.internal.memory;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * The device's memory thread ({@code offload-device0-memory}): frees evicted blocks in
 * the order of a stream of its own ({@code cuMemFreeAsync}, no device-wide
 * synchronization) and grows the page-locked staging arena, so that no request and no
 * completion thread waits for either. Started on first use.
 * <p>
 * Jobs are taken from the queue and run under one lock, so that {@link #flush()} (the
 * out-of-memory path) sees every free queued before it done: one the thread is running,
 * and none taken off the queue but not yet run (the thread waits for a permit, not for
 * the queue, and takes its job only once it holds the lock).
 */
final class MemoryThread {

	private static final Logger logger = LoggerFactory.getLogger(MemoryThread.class);

	private final int deviceId;

	private final BackendDevice backendDevice;

	private final int leastPriority;

	private final ConcurrentLinkedQueue<Runnable> jobs = new ConcurrentLinkedQueue<>();

	/** One permit per job queued, and one per wake-up; a permit may outlive its job. */
	private final Semaphore available = new Semaphore(0);

	private final ReentrantLock lock = new ReentrantLock();

	/** The message of the last failed job, so that its repeats are not warned again. */
	private volatile @Nullable String lastFailure;

	private volatile @Nullable BackendStream stream;

	private volatile @Nullable Thread thread;

	private volatile boolean stopped;

	/** A job run every {@link #tickNanos} while the thread waits for others. */
	private volatile @Nullable Runnable tick;

	private volatile long tickNanos;

	MemoryThread(int deviceId, BackendDevice backendDevice, int leastPriority) {
		this.deviceId = deviceId;
		this.backendDevice = backendDevice;
		this.leastPriority = leastPriority;
	}

	/**
	 * Tells whether the calling thread is this memory thread.
	 */
	boolean isCurrent() {
		return Thread.currentThread() == this.thread;
	}

	/**
	 * Returns the thread's own stream, creating it the first time.
	 */
	BackendStream stream() {
		BackendStream current = this.stream;
		if (current == null) {
			synchronized (this) {
				current = this.stream;
				if (current == null) {
					current = this.backendDevice.createStream(this.leastPriority);
					this.stream = current;
				}
			}
		}
		return current;
	}

	/**
	 * Queues a job; after {@link #stop()}, runs it on the calling thread.
	 */
	void submit(Runnable job) {
		if (this.stopped) {
			runLocked(job);
			return;
		}
		start();
		this.jobs.add(job);
		this.available.release();
		if (this.stopped) {
			// Stopped as it was queued: the thread may have ended and stop() flushed.
			flush();
		}
	}

	/**
	 * Runs {@code job} on this thread every {@code periodNanos}, between the other jobs,
	 * until the thread stops; starts the thread.
	 */
	void every(long periodNanos, Runnable job) {
		this.tickNanos = periodNanos;
		this.tick = job;
		start();
		// Wakes a thread waiting with no period yet.
		this.available.release();
	}

	/**
	 * Queues a stream-ordered free of an idle block.
	 */
	void free(NativeMemory memory) {
		submit(() -> {
			if (this.stopped && this.stream == null) {
				// After stop() there is no stream of its own, and none is
				// made on a device that closed: a block given back that late
				// is freed plainly.
				memory.free();
			}
			else {
				memory.free(stream());
			}
		});
	}

	/**
	 * Runs the queued jobs on the calling thread, then waits for the frees on the
	 * thread's stream (that stream only: not a device-wide synchronization).
	 */
	void flush() {
		this.lock.lock();
		try {
			Runnable job;
			while ((job = this.jobs.poll()) != null) {
				runQuietly(job);
			}
			BackendStream current = this.stream;
			if (current != null) {
				current.synchronize();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops the thread, then runs the jobs still queued on the calling thread, waits for
	 * the frees, and destroys the stream.
	 */
	void stop() {
		this.stopped = true;
		Thread current = this.thread;
		if (current != null) {
			this.available.release();
			try {
				current.join(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		try {
			flush();
		}
		catch (RuntimeException ex) {
			// A failed device: its memory goes with its context.
			logger.debug("Device {}: the memory thread's last frees failed: {}", this.deviceId, ex.getMessage());
		}
		BackendStream own = this.stream;
		if (own != null) {
			this.stream = null;
			try {
				own.destroy();
			}
			catch (RuntimeException ex) {
				logger.warn("Device {}: could not destroy the memory thread's stream: {}", this.deviceId,
						ex.getMessage());
			}
		}
	}

	private void start() {
		if (this.thread == null) {
			synchronized (this) {
				if (this.thread == null && !this.stopped) {
					Thread started = new Thread(this::run, "offload-device" + this.deviceId + "-memory");
					started.setDaemon(true);
					this.thread = started;
					started.start();
				}
			}
		}
	}

	private void run() {
		long nextTick = 0;
		boolean ticking = false;
		while (true) {
			Runnable periodic = this.tick;
			if (periodic != null && !ticking) {
				ticking = true;
				nextTick = System.nanoTime() + this.tickNanos;
			}
			try {
				if (periodic != null) {
					this.available.tryAcquire(nextTick - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				else {
					this.available.acquire();
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			if (this.stopped) {
				// stop() runs what is left, once this thread has ended.
				return;
			}
			runNext();
			if (periodic != null && System.nanoTime() - nextTick >= 0) {
				runLocked(periodic);
				nextTick = System.nanoTime() + this.tickNanos;
			}
		}
	}

	/**
	 * Takes the next job, if flush() has not run it already, and runs it; under the lock.
	 */
	private void runNext() {
		this.lock.lock();
		try {
			Runnable job = this.jobs.poll();
			if (job != null) {
				runQuietly(job);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void runLocked(Runnable job) {
		this.lock.lock();
		try {
			runQuietly(job);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void runQuietly(Runnable job) {
		try {
			job.run();
		}
		catch (RuntimeException ex) {
			// A failed device fails every job alike (each free at shutdown, say): the
			// first such failure is a warning, its repeats are for debugging.
			String message = String.valueOf(ex.getMessage());
			if (message.equals(this.lastFailure)) {
				logger.debug("Device {}: a memory job failed again: {}", this.deviceId, message);
			}
			else {
				this.lastFailure = message;
				logger.warn("Device {}: a memory job failed: {}", this.deviceId, message);
			}
		}
	}

}
