package dev.offload.test.kernel;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.OffloadSession;
import dev.offload.kernel.HostThread;
import dev.offload.kernel.LaunchConfig;

/**
 * A latch that a launch of {@link TestKernels#GATE} waits on, so that a test holds a
 * stream busy for as long as it needs and releases it when it chooses, without timers.
 * <p>
 * On the host emulation a held gate does not occupy one of the device's workers: the
 * device lends another worker while the gate kernel waits, so other streams' kernels (of
 * any priority) run while every gate is held, as on a GPU. A gate kernel gives up after
 * {@link #HOLD_LIMIT 60 seconds} unreleased (its launch then fails), so that a test that
 * forgets {@link #release()} cannot hang a build.
 */
public final class Gate implements AutoCloseable {

	/**
	 * How long a gate kernel waits at most, so that a test that forgets to release a gate
	 * cannot hang a build.
	 */
	static final Duration HOLD_LIMIT = Duration.ofSeconds(60);

	private static final AtomicInteger ids = new AtomicInteger();

	private static final Map<Integer, Gate> open = new ConcurrentHashMap<>();

	private final int id;

	private final CountDownLatch started = new CountDownLatch(1);

	private final CountDownLatch released = new CountDownLatch(1);

	private Gate(int id) {
		this.id = id;
	}

	/**
	 * Creates a closed gate.
	 * @return the gate
	 */
	public static Gate create() {
		Gate gate = new Gate(ids.incrementAndGet());
		open.put(gate.id, gate);
		return gate;
	}

	/**
	 * Returns the gate's id, the argument of {@link TestKernels#GATE}.
	 * @return the id
	 */
	public int id() {
		return this.id;
	}

	/**
	 * Enqueues the gate kernel on the session's stream; the stream stays busy until
	 * {@link #release()}.
	 * @param session the session to launch on
	 */
	public void launch(OffloadSession session) {
		session.launch(TestKernels.GATE, LaunchConfig.of(1, 1), this.id);
	}

	/**
	 * Waits until a launch of this gate runs on its device.
	 * @param timeout how long to wait at most
	 * @return {@code true} if the kernel started, {@code false} if the time ran out
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	public boolean awaitStarted(Duration timeout) throws InterruptedException {
		return this.started.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Tells whether a launch of this gate has started running.
	 * @return {@code true} once the kernel started
	 */
	public boolean hasStarted() {
		return this.started.getCount() == 0;
	}

	/**
	 * Opens the gate: the kernels waiting on it finish, and later launches pass through.
	 */
	public void release() {
		this.released.countDown();
	}

	/**
	 * Releases the gate, so that a test's clean-up never leaves a stream held.
	 */
	@Override
	public void close() {
		release();
		open.remove(this.id);
	}

	/**
	 * Holds the calling kernel thread until the gate is released (at most
	 * {@link #HOLD_LIMIT}); on the host emulation the device lends another worker while
	 * it waits ({@link HostThread#managedBlock}), so a held gate never stops other
	 * streams.
	 */
	static void hold(HostThread thread, int id) {
		Gate gate = open.get(id);
		if (gate == null) {
			if (id > 0 && id <= ids.get()) {
				// Closed before its kernel ran (a test that ends without awaiting its
				// work): a closed gate is released, so the kernel passes.
				return;
			}
			throw new IllegalArgumentException("No gate with id " + id + "; create one with Gate.create()");
		}
		gate.started.countDown();
		Release release = new Release(gate.released, System.nanoTime() + HOLD_LIMIT.toNanos());
		try {
			thread.managedBlock(release);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while gate " + id + " held its stream", ex);
		}
		if (!release.released) {
			throw new IllegalStateException("Gate " + id + " was not released within " + HOLD_LIMIT);
		}
	}

	@Override
	public String toString() {
		return "Gate " + this.id + (this.released.getCount() == 0 ? " (released)" : " (closed)");
	}

	/**
	 * The wait of a held gate kernel: until the gate is released or its hold limit
	 * passes.
	 */
	private static final class Release implements ForkJoinPool.ManagedBlocker {

		private final CountDownLatch latch;

		private final long limitNanos;

		private boolean released;

		Release(CountDownLatch latch, long limitNanos) {
			this.latch = latch;
			this.limitNanos = limitNanos;
		}

		@Override
		public boolean block() throws InterruptedException {
			this.released = this.latch.await(this.limitNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
			return true;
		}

		@Override
		public boolean isReleasable() {
			this.released = this.latch.getCount() == 0;
			return this.released || System.nanoTime() - this.limitNanos >= 0;
		}

	}

}
