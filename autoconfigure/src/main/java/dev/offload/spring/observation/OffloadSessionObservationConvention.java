package dev.offload.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} for the observation of an
 * {@link dev.offload.OffloadSession}; declare a bean to rename it or change its key
 * values.
 */
public interface OffloadSessionObservationConvention extends ObservationConvention<OffloadSessionObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof OffloadSessionObservationContext;
	}

}
