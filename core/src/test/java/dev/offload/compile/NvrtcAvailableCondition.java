package dev.offload.compile;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables tests that compile real CUDA C only where NVRTC loads (the sonames, or the
 * library the system property {@code offload.kernels.nvrtc-library} names); elsewhere
 * they are disabled with what was tried.
 */
public final class NvrtcAvailableCondition implements ExecutionCondition {

	/**
	 * The system property that names NVRTC's library for the tests.
	 */
	public static final String LIBRARY_PROPERTY = "offload.kernels.nvrtc-library";

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		try {
			KernelCompiler compiler = NvrtcLoader.load("(test)", System.getProperty(LIBRARY_PROPERTY));
			return ConditionEvaluationResult.enabled("NVRTC available: " + compiler.version());
		}
		catch (NvrtcUnavailableException ex) {
			return ConditionEvaluationResult.disabled("no NVRTC: tried " + ex.getAttempts());
		}
	}

}
