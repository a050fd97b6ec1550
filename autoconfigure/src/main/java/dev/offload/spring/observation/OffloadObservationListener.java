package dev.offload.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.offload.OffloadListener;
import dev.offload.OffloadSession;

/**
 * {@link OffloadListener} that wraps each {@link OffloadSession} in an
 * {@link Observation}: started when the session opens, as a child of the opening thread's
 * current observation, and stopped when its work ends, with the failure recorded as the
 * observation's error. So a trace shows each GPU session inside the request that opened
 * it.
 * <p>
 * The observation is not opened in scope: a session may be closed on another thread (its
 * device's completion thread, for {@code closeAsync}) than the one that opened it.
 */
public final class OffloadObservationListener implements OffloadListener {

	/**
	 * The session attribute that holds the session's observation.
	 */
	public static final String OBSERVATION_ATTRIBUTE = OffloadObservationListener.class.getName() + ".observation";

	private static final OffloadSessionObservationConvention DEFAULT_CONVENTION = new DefaultOffloadSessionObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable OffloadSessionObservationConvention convention;

	/**
	 * Creates a listener.
	 * @param registry the registry to create the observations in
	 * @param convention a convention replacing the
	 * {@link DefaultOffloadSessionObservationConvention default}, or {@code null}
	 */
	public OffloadObservationListener(ObservationRegistry registry,
			@Nullable OffloadSessionObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public void sessionOpened(OffloadSession session) {
		if (this.registry.isNoop()) {
			return;
		}
		Observation observation = Observation.createNotStarted(this.convention, DEFAULT_CONVENTION,
				() -> new OffloadSessionObservationContext(session), this.registry);
		session.setAttribute(OBSERVATION_ATTRIBUTE, observation.start());
	}

	/**
	 * Adds the call to the session's observation, as an event named
	 * {@code library.<library>.<operation>} (contextual name
	 * {@code offload.library.<library>.<operation>}, a span event in a trace; a meter
	 * handler counts it as {@code offload.session.library.<library>.<operation>}) and in
	 * the count of the {@code library.calls} key.
	 */
	@Override
	public void libraryCalled(OffloadSession session, String library, String operation, long nanos,
			@Nullable Throwable failure) {
		if (!(session.getAttribute(OBSERVATION_ATTRIBUTE) instanceof Observation observation)) {
			return;
		}
		if (observation.getContext() instanceof OffloadSessionObservationContext context) {
			context.libraryCalled();
		}
		String event = "library." + library + "." + operation;
		observation.event(Observation.Event.of(event, "offload." + event));
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		if (!(session.getAttribute(OBSERVATION_ATTRIBUTE) instanceof Observation observation)) {
			return;
		}
		session.setAttribute(OBSERVATION_ATTRIBUTE, null);
		if (failure != null) {
			observation.error(failure);
		}
		observation.stop();
	}

}
