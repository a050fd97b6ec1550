package dev.offload;

import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A device's own stream for the copies that other devices' sessions stage out of its
 * memory, one at a time. The stream pool never lends it, so a session that holds a stream
 * of its own device never waits for this device's pool: two devices whose bounded pools
 * are full, each with sessions copying from the other, would otherwise wait for each
 * other until the borrow timeout. Made on first use, destroyed when the device closes;
 * after a failed copy it is given up and the next copy makes another.
 */
final class StagingStream {

	private static final Logger logger = LoggerFactory.getLogger(StagingStream.class);

	private final Device device;

	/** One copy at a time; a lock, not a monitor, so that waiting never pins. */
	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable BackendStream stream;

	private boolean closed;

	StagingStream(Device device) {
		this.device = device;
	}

	/**
	 * Copies a range of this device's memory to page-locked host memory once
	 * {@code after} has happened, and waits for the copy.
	 * @param after an event of another device's stream that the copy waits for, or
	 * {@code null}
	 * @throws StreamPoolClosedException if the device is closing
	 * @throws BackendException if the copy failed (a sticky error fails the device)
	 */
	void copyOut(@Nullable BackendEvent after, NativeMemory src, long srcOffset, NativeMemory staging, long bytes) {
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
				if (after != null) {
					copying.waitFor(after);
				}
				copying.copy(src, srcOffset, staging, 0, bytes);
				copying.synchronize();
			}
			catch (RuntimeException ex) {
				this.stream = null;
				destroy(copying);
				throw ex;
			}
		}
		catch (BackendException ex) {
			this.device.failIfSticky(ex);
			throw ex;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Tells whether a copy is in progress or waits for the stream. */
	boolean isCopying() {
		return this.lock.isLocked();
	}

	/**
	 * Destroys the stream, waiting for a copy in progress; later copies are refused.
	 */
	void close() {
		this.lock.lock();
		try {
			this.closed = true;
			BackendStream copying = this.stream;
			this.stream = null;
			if (copying != null) {
				destroy(copying);
			}
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
