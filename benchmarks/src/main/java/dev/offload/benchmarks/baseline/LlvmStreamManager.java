package dev.offload.benchmarks.baseline;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

/**
 * The LLVM offload runtime's stream pool, written as its {@code StreamManagerTy} (review
 * D77412) is for one device: an array of streams and the index of the next free one, both
 * under one lock. {@link #getStream()} hands out {@code pool[next++]}, doubling the array
 * (and creating the new streams) when it is exhausted; {@link #returnStream} stores the
 * stream at {@code pool[--next]}. The streams left of {@code next} are lent, those from
 * {@code next} on are idle.
 * <p>
 * It keeps no state per stream and no statistics, so it cannot tell a double return, and
 * has no bound, priority or shutdown: it is the baseline the real pool is measured
 * against, not something to use.
 */
public final class LlvmStreamManager {

	private final BackendDevice device;

	private final int nativePriority;

	// A std::mutex in the LLVM runtime; ReentrantLock is its closest Java equivalent (no
	// biased locking since JDK 15).
	private final ReentrantLock lock = new ReentrantLock();

	private BackendStream[] pool;

	private int nextStreamId;

	/**
	 * Creates the pool and its first streams, as
	 * {@code StreamManagerTy::initializeDevice} does.
	 * @param device the device to create streams on
	 * @param nativePriority the native priority of the streams
	 * @param initialSize the streams created now, at least 1 (32 in the LLVM runtime)
	 */
	public LlvmStreamManager(BackendDevice device, int nativePriority, int initialSize) {
		if (initialSize < 1) {
			throw new IllegalArgumentException("initialSize must be at least 1, was " + initialSize);
		}
		this.device = device;
		this.nativePriority = nativePriority;
		this.pool = new BackendStream[0];
		resizeStreamPool(initialSize);
	}

	/**
	 * Lends the next free stream, doubling the pool first if every stream is lent.
	 * @return the stream
	 */
	public BackendStream getStream() {
		this.lock.lock();
		try {
			if (this.nextStreamId == this.pool.length) {
				resizeStreamPool(this.nextStreamId * 2);
			}
			return this.pool[this.nextStreamId++];
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes a stream back. The order of returns may differ from that of borrows: a stream
	 * may then appear twice in the array, once on each side of the index, and the stale
	 * copy on the left is overwritten by a later return.
	 * @param stream a stream this pool lent
	 */
	public void returnStream(BackendStream stream) {
		this.lock.lock();
		try {
			if (this.nextStreamId == 0) {
				throw new IllegalStateException("No stream is lent");
			}
			this.pool[--this.nextStreamId] = stream;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns the number of streams the pool created.
	 * @return the array's length
	 */
	public int size() {
		this.lock.lock();
		try {
			return this.pool.length;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Destroys the idle streams; call it once every stream is back.
	 */
	public void destroy() {
		this.lock.lock();
		try {
			for (int i = this.nextStreamId; i < this.pool.length; i++) {
				this.pool[i].destroy();
			}
			this.pool = new BackendStream[0];
			this.nextStreamId = 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void resizeStreamPool(int newSize) {
		int currentSize = this.pool.length;
		this.pool = Arrays.copyOf(this.pool, newSize);
		for (int i = currentSize; i < newSize; i++) {
			this.pool[i] = this.device.createStream(this.nativePriority);
		}
	}

}
