package dev.offload.test;

import java.util.List;
import java.util.stream.Collectors;

import org.assertj.core.api.AbstractAssert;

import dev.offload.Device;
import dev.offload.DeviceRegistry;

/**
 * Assertions on a {@link DeviceRegistry}: the health of its devices and what their pools
 * lend.
 */
public class DeviceRegistryAssert extends AbstractAssert<DeviceRegistryAssert, DeviceRegistry> {

	DeviceRegistryAssert(DeviceRegistry actual) {
		super(actual, DeviceRegistryAssert.class);
	}

	/**
	 * Verifies that no device of the registry has failed.
	 * @return this assertion
	 */
	public DeviceRegistryAssert allHealthy() {
		isNotNull();
		List<Device> failed = this.actual.devices().stream().filter((device) -> !device.isHealthy()).toList();
		if (!failed.isEmpty()) {
			failWithMessage("Expected all devices to be healthy but these failed:%n%s", describe(failed, true));
		}
		return this;
	}

	/**
	 * Verifies that no device lends a stream, has an open session, or has a borrower
	 * waiting.
	 * @return this assertion
	 */
	public DeviceRegistryAssert hasNothingLentAnywhere() {
		isNotNull();
		List<Device> lending = this.actual.devices()
			.stream()
			.filter((device) -> device.streamPool().inUse() != 0 || device.streamPool().waiting() != 0
					|| device.activeSessions() != 0)
			.toList();
		if (!lending.isEmpty()) {
			failWithMessage("Expected no device to lend anything but these do:%n%s", describe(lending, false));
		}
		return this;
	}

	private static String describe(List<Device> devices, boolean withFailure) {
		return devices.stream()
			.map((device) -> "  device " + device.id() + ": " + device.activeSessions() + " open session(s), "
					+ device.streamPool().statistics()
					+ (withFailure ? ", failure " + device.failure().map(String::valueOf).orElse("none") : ""))
			.collect(Collectors.joining(System.lineSeparator()));
	}

}
