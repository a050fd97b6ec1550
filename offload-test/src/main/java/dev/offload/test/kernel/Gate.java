package dev.offload.test.kernel;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;

/**
 * A latch that a launch of {@link TestKernels#GATE} waits on, so that a test holds a
 * stream busy for as long as it needs and releases it when it chooses, without timers.
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

	static void hold(int id) {
		Gate gate = open.get(id);
		if (gate == null) {
			throw new IllegalArgumentException("No open gate with id " + id + "; create one with Gate.create()");
		}
		gate.started.countDown();
		try {
			if (!gate.released.await(HOLD_LIMIT.toNanos(), TimeUnit.NANOSECONDS)) {
				throw new IllegalStateException("Gate " + id + " was not released within " + HOLD_LIMIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while gate " + id + " held its stream", ex);
		}
	}

	@Override
	public String toString() {
		return "Gate " + this.id + (this.released.getCount() == 0 ? " (released)" : " (closed)");
	}

}
