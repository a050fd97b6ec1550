package dev.offload.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.spring.aop.UnknownOffloadDeviceException;

/**
 * Reports an {@link UnknownOffloadDeviceException}: the bean and method whose
 * {@code @Offload} names a device that does not exist, and the devices there are.
 */
final class UnknownOffloadDeviceFailureAnalyzer extends AbstractFailureAnalyzer<UnknownOffloadDeviceException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownOffloadDeviceException cause) {
		String action = "Change @Offload(device = " + cause.getDeviceId() + ") on " + cause.getMethod()
				+ " to one of the device ids " + cause.getAvailableIds() + " (or remove 'device' for the least busy "
				+ "one), or make the device available: list it in 'offload.devices', raise "
				+ "'offload.host.device-count' on the host backend, or check that the GPU is visible to this process.";
		return new FailureAnalysis(cause.getMessage() + ".", action, cause);
	}

}
