package dev.offload.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.autoconfigure.InvalidOffloadConfigurationException;

/**
 * Reports an {@link InvalidOffloadConfigurationException}: the property, its value as
 * typed, where it was set and what is wrong, and how to fix it.
 */
final class InvalidOffloadConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidOffloadConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidOffloadConfigurationException cause) {
		String origin = (cause.getOrigin() != null) ? "\n    Origin: " + cause.getOrigin() : "";
		return new FailureAnalysis(cause.getMessage() + origin, cause.getAction(), cause);
	}

}
