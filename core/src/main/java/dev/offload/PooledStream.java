package dev.offload;

import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.spi.BackendStream;

/**
 * A stream and its state in its {@link StreamPool}: {@code IDLE}, {@code IN_USE} or {@code DISCARDED}, changed only
 * by compare-and-set so that a stream is never lent twice.
 */
final class PooledStream {

	static final int STATE_IDLE = 0;

	static final int STATE_IN_USE = 1;

	static final int STATE_DISCARDED = 2;

	final int id;

	final StreamPriority priority;

	final BackendStream stream;

	final AtomicInteger state = new AtomicInteger(STATE_IDLE);

	/** Times lent; written only by the borrower, published by the state changes. */
	long borrows;

	PooledStream(int id, StreamPriority priority, BackendStream stream) {
		this.id = id;
		this.priority = priority;
		this.stream = stream;
	}

	@Override
	public String toString() {
		return "stream " + this.id + " (" + this.priority + ")";
	}

}
