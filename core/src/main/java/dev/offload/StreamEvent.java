package dev.offload;

import dev.offload.spi.BackendEvent;
import dev.offload.internal.VirtualThreads;

/**
 * A point in one session's work that other sessions can wait for
 * ({@link OffloadSession#waitFor(StreamEvent)}) and the host can query. Valid until its
 * session ends; after that, using it throws {@link IllegalStateException}.
 */
public final class StreamEvent {

	private final OffloadSession session;

	private final BackendEvent event;

	private volatile boolean released;

	StreamEvent(OffloadSession session, BackendEvent event) {
		this.session = session;
		this.event = event;
	}

	/**
	 * Tells whether the work before the event is done.
	 * @return {@code true} when complete
	 * @throws IllegalStateException if the recording session ended
	 */
	public boolean isComplete() {
		return backendEvent().query();
	}

	/**
	 * Blocks until the work before the event is done. A virtual thread parks until the
	 * device's completion thread sees the event reached, instead of blocking in the
	 * driver.
	 * @throws IllegalStateException if the recording session ended
	 */
	public void synchronize() {
		BackendEvent backend = backendEvent();
		if (VirtualThreads.isCurrentThreadVirtual()) {
			this.session.device().completions().parkUntil(backend::query);
		}
		else {
			backend.synchronize();
		}
	}

	/**
	 * Returns the session that recorded the event.
	 * @return the session
	 */
	public OffloadSession session() {
		return this.session;
	}

	BackendEvent backendEvent() {
		if (this.released) {
			throw new IllegalStateException("The event's session has ended; the event was given back to its pool");
		}
		return this.event;
	}

	BackendEvent release() {
		this.released = true;
		return this.event;
	}

}
