package dev.offload.backend.cuda;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables {@link GpuTests} tests only where {@link CudaBackend#probe()} finds a CUDA
 * device; elsewhere they are disabled with the probe's reason.
 */
public final class CudaAvailableCondition implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		CudaAvailability availability = CudaBackend.probe();
		if (availability.available()) {
			return ConditionEvaluationResult.enabled("CUDA available: " + availability.message());
		}
		return ConditionEvaluationResult
			.disabled("no CUDA device: " + availability.reason() + ": " + availability.message());
	}

}
