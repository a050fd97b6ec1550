package dev.offload.backend.cuda;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables {@link MultiGpuTests} only where {@link CudaBackend#probe()} finds at least two
 * CUDA devices; elsewhere they are disabled with the reason.
 */
public final class MultiGpuCondition implements ExecutionCondition {

	/** The devices the tests need. */
	static final int REQUIRED_DEVICES = 2;

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		CudaAvailability availability = CudaBackend.probe();
		if (!availability.available()) {
			return ConditionEvaluationResult
				.disabled("no CUDA device: " + availability.reason() + ": " + availability.message());
		}
		if (availability.deviceCount() < REQUIRED_DEVICES) {
			return ConditionEvaluationResult
				.disabled("needs at least " + REQUIRED_DEVICES + " CUDA devices, found " + availability.message());
		}
		return ConditionEvaluationResult.enabled("CUDA available: " + availability.message());
	}

}
