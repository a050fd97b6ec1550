package dev.offload.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.spring.aop.InvalidOffloadAnnotationException;

/**
 * Reports an {@link InvalidOffloadAnnotationException}: the bean and method whose
 * {@code @Offload} cannot be used, the value as written and the format expected.
 */
final class InvalidOffloadAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidOffloadAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidOffloadAnnotationException cause) {
		return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
	}

}
