package dev.offload.benchmarks.prototype;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

/**
 * A prototype of the fast path proposed for {@link dev.offload.StreamPool} in
 * {@code docs/benchmarks.md}, to measure it beside the real pool: streams in an array of
 * slots whose state changes by compare-and-set (HikariCP's {@code ConcurrentBag} without
 * its hand-off queue), a per-thread hint of the slot the thread released last, no shared
 * counter (each slot counts its own borrows, written only by the thread that holds it;
 * the number in use is counted from the states when asked), and no clock read. A borrow
 * is one compare-and-set when the thread's last stream is idle; a release is one
 * compare-and-set. Growth (doubling) takes the lock; nothing else does.
 * <p>
 * Only what the benchmark needs: one priority class, unbounded, no waiting, no statistics
 * beyond the counters, no shutdown. Not for use outside the benchmarks.
 */
public final class SlotStreamPool {

	static final int STATE_IDLE = 0;

	static final int STATE_IN_USE = 1;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(SlotFields.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final BackendDevice device;

	private final int nativePriority;

	private final ReentrantLock lock = new ReentrantLock();

	private final ThreadLocal<Slot> lastReleased = new ThreadLocal<>();

	private volatile Slot[] slots = new Slot[0];

	/**
	 * Creates the pool and its first streams.
	 * @param device the device to create streams on
	 * @param nativePriority the native priority of the streams
	 * @param initialSize the streams created now, at least 1
	 */
	public SlotStreamPool(BackendDevice device, int nativePriority, int initialSize) {
		this.device = device;
		this.nativePriority = nativePriority;
		this.lock.lock();
		try {
			grow(initialSize);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Lends an idle stream: the one this thread released last if it is still idle, else
	 * the first idle one found from a place that depends on the thread, else a new one.
	 * @return the slot of the lent stream
	 */
	public Slot borrow() {
		Slot slot = this.lastReleased.get();
		if (slot == null || !slot.compareAndSetState(STATE_IDLE, STATE_IN_USE)) {
			slot = scan();
		}
		// Only the holder writes it; the compare-and-sets order the writes of successive
		// holders.
		slot.borrows++;
		return slot;
	}

	private Slot scan() {
		while (true) {
			Slot[] all = this.slots;
			int start = (int) (Thread.currentThread().getId() % all.length);
			for (int i = 0; i < all.length; i++) {
				Slot slot = all[(start + i) % all.length];
				if (slot.state == STATE_IDLE && slot.compareAndSetState(STATE_IDLE, STATE_IN_USE)) {
					return slot;
				}
			}
			this.lock.lock();
			try {
				if (this.slots == all) {
					grow(all.length);
				}
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Takes back a stream whose work is done.
	 * @param slot the slot {@link #borrow()} returned
	 * @throws IllegalStateException if the stream is not lent
	 */
	public void release(Slot slot) {
		if (!slot.compareAndSetState(STATE_IN_USE, STATE_IDLE)) {
			throw new IllegalStateException("The stream is not lent");
		}
		if (this.lastReleased.get() != slot) {
			this.lastReleased.set(slot);
		}
	}

	/**
	 * Returns the number of streams.
	 * @return the number of slots
	 */
	public int size() {
		return this.slots.length;
	}

	/**
	 * Returns the number of streams lent now.
	 * @return the number in use
	 */
	public long inUse() {
		return Arrays.stream(this.slots).filter((slot) -> slot.state == STATE_IN_USE).count();
	}

	/**
	 * Returns the number of borrows so far.
	 * @return the number of borrows
	 */
	public long borrows() {
		// Exact once every stream is back; a slot's count may lag while another thread
		// holds it.
		return Arrays.stream(this.slots).mapToLong((slot) -> slot.borrows).sum();
	}

	/**
	 * Destroys the streams; call it once every stream is back.
	 */
	public void destroy() {
		for (Slot slot : this.slots) {
			slot.stream.destroy();
		}
	}

	/** Adds {@code count} streams; holds the lock. */
	private void grow(int count) {
		Slot[] current = this.slots;
		Slot[] grown = Arrays.copyOf(current, current.length + count);
		for (int i = current.length; i < grown.length; i++) {
			grown[i] = new Slot(this.device.createStream(this.nativePriority));
		}
		this.slots = grown;
	}

	/**
	 * A stream, its state and its borrow count, padded to a cache line of its own so that
	 * threads holding neighbouring slots do not slow each other down (false sharing).
	 */
	public static final class Slot extends SlotFields {

		long p10, p11, p12, p13, p14, p15, p16, p17;

		Slot(BackendStream stream) {
			super(stream);
		}

		/**
		 * Returns the stream.
		 * @return the stream
		 */
		public BackendStream stream() {
			return this.stream;
		}

		boolean compareAndSetState(int expected, int value) {
			return STATE.compareAndSet(this, expected, value);
		}

	}

	/**
	 * The fields of a slot; the JVM lays out a superclass's fields first, so the padding
	 * goes around them.
	 */
	abstract static class SlotFields extends SlotPadding {

		final BackendStream stream;

		volatile int state = STATE_IDLE;

		long borrows;

		SlotFields(BackendStream stream) {
			this.stream = stream;
		}

	}

	abstract static class SlotPadding {

		long p00, p01, p02, p03, p04, p05, p06, p07;

	}

}
