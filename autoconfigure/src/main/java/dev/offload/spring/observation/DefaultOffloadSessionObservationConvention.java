package dev.offload.spring.observation;

import java.util.Locale;

import io.micrometer.common.KeyValues;

import dev.offload.OffloadSession;

/**
 * The default {@link OffloadSessionObservationConvention}: the observation
 * {@value #NAME}, named {@code "offload session"} in traces, with low-cardinality keys
 * {@code device}, {@code backend} and {@code priority} and the high-cardinality keys
 * {@code session} and, once the session called a library, {@code library.calls} (its
 * library calls, such as cuBLAS operations; each is also an event of the observation,
 * {@code offload.library.<library>.<operation>}).
 */
public class DefaultOffloadSessionObservationConvention implements OffloadSessionObservationConvention {

	/**
	 * The observation's name.
	 */
	public static final String NAME = "offload.session";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(OffloadSessionObservationContext context) {
		return "offload session";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(OffloadSessionObservationContext context) {
		OffloadSession session = context.getSession();
		return KeyValues.of("device", String.valueOf(session.device().id()), "backend", session.device().backendName(),
				"priority", session.priority().name().toLowerCase(Locale.ROOT));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(OffloadSessionObservationContext context) {
		KeyValues values = KeyValues.of("session", String.valueOf(context.getSession().id()));
		// Only sessions that called a library carry the count.
		return (context.getLibraryCalls() > 0) ? values.and("library.calls", String.valueOf(context.getLibraryCalls()))
				: values;
	}

}
