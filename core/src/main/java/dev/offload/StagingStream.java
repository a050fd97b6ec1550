package dev.offload;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A device's own stream for the copies that other devices' sessions stage out of its
 * memory, one at a time. The stream pool never lends it, so a session that holds a stream
 * of its own device never waits for this device's pool: two devices whose bounded pools
 * are full, each with sessions copying from the other, would otherwise wait for each
 * other until the borrow timeout. It only copies, so it has the normal priority (stream
 * priorities order kernels, not copies). Made on first use, destroyed when the device
 * closes; after a failed copy it is given up and the next copy makes another.
 */
final class StagingStream {

	private static final Logger logger = LoggerFactory.getLogger(StagingStream.class);

	private final Device device;

	/**
	 * One copy at a time, held for the copy alone (what it waits for, the caller waited
	 * for before); a lock, not a monitor, so that waiting for it never pins.
	 */
	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable BackendStream stream;

	private boolean closed;

	StagingStream(Device device) {
		this.device = device;
	}

	/**
	 * Copies a range of this device's memory to page-locked host memory and waits for the
	 * copy (a virtual thread parks).
	 * @throws StreamPoolClosedException if the device is closing
	 * @throws BackendException if the copy failed (a sticky error fails the device)
	 */
	void copyOut(NativeMemory src, long srcOffset, NativeMemory staging, long bytes) {
		BackendException failure = null;
		this.lock.lock();
		try {
			if (this.closed || this.device.sessions().isClosing()) {
				throw new StreamPoolClosedException(this.device.id());
			}
			BackendStream copying = this.stream;
			if (copying == null) {
				copying = this.device.backendDevice().createStream(this.device.nativePriority(StreamPriority.NORMAL));
				this.stream = copying;
			}
			try {
				copying.copy(src, srcOffset, staging, 0, bytes);
				this.device.completions().awaitIdle(copying);
			}
			catch (RuntimeException ex) {
				this.stream = null;
				destroy(copying);
				throw ex;
			}
		}
		catch (BackendException ex) {
			failure = ex;
			throw ex;
		}
		finally {
			this.lock.unlock();
			// Outside the lock: failing the device tells its listener.
			if (failure != null) {
				this.device.failIfSticky(failure);
			}
		}
	}

	/**
	 * Destroys the stream once a copy in progress is done; later copies are refused.
	 * @param deadlineNanos when to stop waiting for a copy in progress
	 * ({@link System#nanoTime()})
	 * @return {@code false} if a copy was still in progress at the deadline (the stream
	 * stays)
	 */
	boolean close(long deadlineNanos) {
		try {
			if (!this.lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
				return false;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		try {
			this.closed = true;
			BackendStream copying = this.stream;
			this.stream = null;
			if (copying != null) {
				destroy(copying);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Lets whatever was enqueued finish, then destroys the stream; failures logged. */
	private void destroy(BackendStream copying) {
		try {
			copying.synchronize();
		}
		catch (RuntimeException ex) {
			// Its work failed: destroying it is all that is left.
		}
		try {
			copying.destroy();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not destroy the staging stream of device {}: {}", this.device.id(), ex.getMessage());
		}
	}

}
