package dev.offload;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.offload.spi.BackendStream;

/**
 * A stream and its state in its {@link StreamPool}: {@code IDLE}, {@code IN_USE} or
 * {@code DISCARDED}, changed only by compare-and-set so that a stream is never lent
 * twice. The state sits between padding fields so that threads lending neighbouring
 * streams do not share a cache line.
 */
final class PooledStream extends PooledStreamFields {

	static final int STATE_IDLE = 0;

	static final int STATE_IN_USE = 1;

	static final int STATE_DISCARDED = 2;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(PooledStreamState.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final int id;

	final StreamPriority priority;

	/** The backend stream this pool entry lends. */
	final BackendStream backend;

	/** Times lent; written only by the borrower, published by the state changes. */
	long borrows;

	PooledStream(int id, StreamPriority priority, BackendStream stream) {
		this.id = id;
		this.priority = priority;
		this.backend = stream;
	}

	int state() {
		return (int) STATE.getVolatile(this);
	}

	boolean compareAndSetState(int expected, int next) {
		return STATE.compareAndSet(this, expected, next);
	}

	@Override
	public String toString() {
		return "stream " + this.id + " (" + this.priority + ")";
	}

}

/** Padding before the state. */
abstract class PooledStreamPadding {

	long p01, p02, p03, p04, p05, p06, p07;

}

/** The state, between paddings. */
abstract class PooledStreamState extends PooledStreamPadding {

	volatile int state;

}

/** Padding after the state. */
abstract class PooledStreamFields extends PooledStreamState {

	long p11, p12, p13, p14, p15, p16, p17;

}
