package dev.offload.test.contract;

import org.junit.jupiter.api.Nested;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

/**
 * {@link SessionBehaviourContract} on each device of a host backend emulating three
 * devices: every device's pool and sessions behave as a single device's do.
 */
class HostMultiDeviceSessionBehaviourTests {

	private static final int DEVICE_COUNT = 3;

	/**
	 * The host suite on one device of a three-device backend.
	 */
	abstract static class OnDevice extends HostSessionBehaviourTests {

		@Override
		protected Backend createBackend() {
			return HostBackend.builder().deviceCount(DEVICE_COUNT).workersPerDevice(4).build();
		}

	}

	@Nested
	class Device0Tests extends OnDevice {

		@Override
		protected int deviceId() {
			return 0;
		}

	}

	@Nested
	class Device1Tests extends OnDevice {

		@Override
		protected int deviceId() {
			return 1;
		}

	}

	@Nested
	class Device2Tests extends OnDevice {

		@Override
		protected int deviceId() {
			return 2;
		}

	}

}
