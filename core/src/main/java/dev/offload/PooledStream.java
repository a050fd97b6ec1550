package dev.offload;

import dev.offload.internal.lending.Lendable;
import dev.offload.internal.lending.LendingPool;
import dev.offload.spi.BackendStream;

/**
 * A stream of a {@link StreamPool}, lent by the pool's
 * {@link dev.offload.internal.lending.LendingPool} in the class of its priority.
 */
final class PooledStream extends Lendable {

	final int id;

	final StreamPriority priority;

	/** The backend stream this pool entry lends. */
	final BackendStream backend;

	PooledStream(int id, StreamPriority priority, BackendStream stream) {
		super(priority.ordinal());
		this.id = id;
		this.priority = priority;
		this.backend = stream;
	}

	@Override
	public String toString() {
		return "stream " + this.id + " (" + this.priority + ")";
	}

}
