package dev.offload.spring.observation;

import io.micrometer.observation.Observation;

import dev.offload.OffloadSession;

/**
 * The {@link Observation.Context} of an {@link OffloadSession}'s observation, from
 * opening to the end of its work.
 */
public final class OffloadSessionObservationContext extends Observation.Context {

	private final OffloadSession session;

	/** Library calls the session made (cuBLAS operations), written by its one thread. */
	private volatile int libraryCalls;

	/**
	 * Creates a context.
	 * @param session the observed session
	 */
	public OffloadSessionObservationContext(OffloadSession session) {
		this.session = session;
	}

	/**
	 * Returns the observed session.
	 * @return the session
	 */
	public OffloadSession getSession() {
		return this.session;
	}

	/**
	 * Returns how many library calls (cuBLAS operations) the session made so far.
	 * @return the count
	 */
	public int getLibraryCalls() {
		return this.libraryCalls;
	}

	void libraryCalled() {
		this.libraryCalls++;
	}

}
