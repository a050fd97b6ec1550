package dev.offload.backend.cuda;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;

import dev.offload.spi.BackendAvailability;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Enables {@link GpuTests} tests only where the run's binding ({@link CudaTestBackends})
 * finds a CUDA device; elsewhere they are disabled with the probe's reason.
 */
public final class CudaAvailableCondition implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		BackendAvailability availability = CudaTestBackends.probe();
		String binding = CudaTestBackends.isFfm() ? " (FFM binding)" : "";
		if (availability.available()) {
			return ConditionEvaluationResult.enabled("CUDA available" + binding + ": " + availability.message());
		}
		return ConditionEvaluationResult.disabled("no CUDA device" + binding + ": " + availability.message());
	}

}
