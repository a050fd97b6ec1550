package dev.offload.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.NoSuchDeviceException;
import dev.offload.autoconfigure.InvalidOffloadConfigurationException;
import dev.offload.spring.aop.UnknownOffloadDeviceException;

/**
 * Reports a {@link NoSuchDeviceException} thrown while the application starts, such as a
 * bean asking the registry for a device that does not exist. One that the configuration
 * caused is reported by {@link InvalidOffloadConfigurationFailureAnalyzer} instead, which
 * names the property.
 */
final class NoSuchDeviceFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchDeviceException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchDeviceException cause) {
		if (findCause(rootFailure, InvalidOffloadConfigurationException.class) != null
				|| cause instanceof UnknownOffloadDeviceException) {
			return null;
		}
		String description = "Offload has no device with id " + cause.getDeviceId() + "; its devices are "
				+ cause.getAvailableIds() + ".";
		String action = "Use one of the device ids " + cause.getAvailableIds()
				+ ", or make the device available: list it in 'offload.devices', raise 'offload.host.device-count' "
				+ "on the host backend, or check that the GPU is visible to this process (CUDA_VISIBLE_DEVICES).";
		return new FailureAnalysis(description, action, cause);
	}

}
