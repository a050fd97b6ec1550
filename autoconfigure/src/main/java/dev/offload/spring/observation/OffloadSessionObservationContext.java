package dev.offload.spring.observation;

import io.micrometer.observation.Observation;

import dev.offload.OffloadSession;

/**
 * The {@link Observation.Context} of an {@link OffloadSession}'s observation, from
 * opening to the end of its work.
 */
public final class OffloadSessionObservationContext extends Observation.Context {

	private final OffloadSession session;

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

}
