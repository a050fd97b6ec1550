package dev.offload.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidOffloadConfigurationException}: the property, its value and what is wrong, and how to
 * fix it.
 */
final class InvalidOffloadConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidOffloadConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidOffloadConfigurationException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
	}

}
