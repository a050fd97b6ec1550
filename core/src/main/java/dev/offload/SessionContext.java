package dev.offload;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.completion.Completions;
import dev.offload.internal.memory.DeviceMemory;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * What a device hands its sessions, wired once when the device is made: its memory, its
 * completion engine, its stream pool and library handles, its listener; and the
 * bookkeeping of the sessions opened and not yet ended, which shutdown drains. One per
 * device, shared by its sessions and buffers; the rooms behind it know nothing of the
 * API.
 */
final class SessionContext {

	private static final Logger logger = LoggerFactory.getLogger(SessionContext.class);

	final Device device;

	final DeviceMemory memory;

	final Completions completions;

	final StreamPool streamPool;

	final LibraryHandles libraryHandles;

	final OffloadListener listener;

	/** Whether a listener wants sessions' durations (the clock is read only then). */
	final boolean listened;

	private final LongAdder active = new LongAdder();

	/** Set when shutdown began: new sessions are refused, the open ones may finish. */
	private volatile boolean closing;

	/**
	 * Signalled when a session ends while the device closes; a lock, not a monitor, so
	 * that waiting never pins.
	 */
	private final ReentrantLock drainLock = new ReentrantLock();

	private final Condition drained = this.drainLock.newCondition();

	SessionContext(Device device, DeviceMemory memory, Completions completions, StreamPool streamPool,
			OffloadListener listener) {
		this.device = device;
		this.memory = memory;
		this.completions = completions;
		this.streamPool = streamPool;
		this.libraryHandles = new LibraryHandles(device);
		this.listener = listener;
		this.listened = listener != OffloadListener.NONE;
	}

	int activeSessions() {
		return this.active.intValue();
	}

	boolean isClosing() {
		return this.closing;
	}

	/** Counts a session opened. */
	void opened(OffloadSession session) {
		this.active.increment();
		this.listener.sessionOpened(session);
	}

	void ended(OffloadSession session, @Nullable Throwable failure) {
		this.active.decrement();
		if (this.closing) {
			signalDrained();
		}
		if (this.listened) {
			try {
				this.listener.sessionClosed(session, System.nanoTime() - session.openedNanos(), failure);
			}
			catch (RuntimeException ex) {
				// A listener's failure is not the session's: its end stands.
				logger.warn("Offload listener {} threw on the end of session {}; ignored", this.listener, session.id(),
						ex);
			}
		}
	}

	/**
	 * Refuses new sessions from now on; the open ones may go on until the device closes.
	 */
	void refuseNewSessions() {
		this.closing = true;
	}

	/**
	 * Returns device memory for a buffer whose budget is already charged.
	 * @param stream the session's stream, whose order a new allocation joins, or
	 * {@code null}
	 */
	NativeMemory acquireDeviceMemory(long bytes, @Nullable BackendStream stream) {
		checkBytes(bytes, false);
		this.device.checkUsable();
		// No lambda: a cache hit allocates nothing but the buffer.
		try {
			return this.memory.acquireDevice(bytes, stream);
		}
		catch (BackendException ex) {
			this.device.failIfSticky(ex);
			throw ex;
		}
	}

	NativeMemory acquireHostMemory(long bytes) {
		checkBytes(bytes, true);
		this.device.checkUsable();
		try {
			return this.memory.acquireHost(bytes);
		}
		catch (BackendException ex) {
			this.device.failIfSticky(ex);
			throw ex;
		}
	}

	static void checkBytes(long bytes, boolean host) {
		if (bytes < 1) {
			throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
		}
		if (host && bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"A host buffer holds at most " + Integer.MAX_VALUE + " bytes, was " + bytes);
		}
	}

	/**
	 * Takes back a buffer's memory once its work is done; an application-owned device
	 * buffer gives its budget back too (a session's buffers are in its reservation).
	 * @param budgetBytesFollowing the budget's bytes given back right after this block
	 * (see {@link DeviceMemory#release(NativeMemory, long)})
	 */
	void releaseMemory(NativeMemory memory, boolean charged, long budgetBytesFollowing) {
		try {
			this.memory.release(memory, budgetBytesFollowing);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not free {} bytes of device {}: {}", memory.size(), this.device.id(), ex.getMessage());
		}
		finally {
			if (charged && !memory.isHost()) {
				this.memory.releaseBudget(memory.size());
			}
			if (this.closing && memory.isHost()) {
				// Shutdown may be waiting for the page-locked memory to come back.
				signalDrained();
			}
		}
	}

	/**
	 * Waits, up to {@code deadline}, until {@code done} holds; woken when a session ends
	 * or page-locked memory comes back while the device closes.
	 * @return whether it holds
	 */
	boolean awaitDrained(BooleanSupplier done, long deadline) {
		this.drainLock.lock();
		try {
			while (!done.getAsBoolean()) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				// Bounded so that a missed wake-up costs at most 50 ms.
				this.drained.awaitNanos(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.drainLock.unlock();
		}
	}

	private void signalDrained() {
		this.drainLock.lock();
		try {
			this.drained.signalAll();
		}
		finally {
			this.drainLock.unlock();
		}
	}

}
