package dev.offload;

import dev.offload.spi.BackendEvent;
import dev.offload.internal.VirtualThreads;

/**
 * A point in one session's work that other sessions can wait for
 * ({@link OffloadSession#waitFor(StreamEvent)}) and the host can query. Valid until it is
 * closed or its session ends; after that, using it throws {@link IllegalStateException}.
 * A session kept open for many requests closes the events it no longer needs, so that
 * they go back to the device's pool at its next synchronize instead of at its end.
 */
public final class StreamEvent implements AutoCloseable {

	private final OffloadSession session;

	private final BackendEvent event;

	/** Set by {@link #close()}. */
	private volatile boolean closed;

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

	/**
	 * Closes the event: it goes back to the device's pool once the session's work
	 * enqueued so far is done (at its next {@link OffloadSession#synchronize()}, or when
	 * it ends). Waits that other sessions enqueued before the close still wait for the
	 * point it marked; the host must no longer query or wait for it. Closing twice is
	 * harmless.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.session.work.closedSomething(0);
	}

	boolean isClosed() {
		return this.closed;
	}

	BackendEvent backendEvent() {
		if (this.closed) {
			throw new IllegalStateException("The event is closed");
		}
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
