package dev.offload.test.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.test.OffloadAssertions;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The fault properties of {@link OffloadTestConfiguration}, read from an environment.
 */
class OffloadTestConfigurationTests {

	private final MockEnvironment environment = new MockEnvironment();

	@Test
	void injectFaultsWhenNoPropertyIsSetShouldWrapWithoutFaults() {
		FaultInjectingBackend faults = inject(1);
		try (DeviceRegistry registry = DeviceRegistry.builder(faults).build()) {
			for (int i = 0; i < 3; i++) {
				runNoop(registry, 0);
			}
			OffloadAssertions.assertThat(registry).allHealthy().hasNothingLentAnywhere();
			assertThat(faults.calls(Operation.LAUNCH)).isEqualTo(3);
			assertThat(faults.injected(Operation.LAUNCH)).isZero();
		}
	}

	@Test
	void injectFaultsWhenADeviceIsNamedShouldFailTheNthLaunchOnThatDeviceOnly() {
		this.environment.withProperty("offload.test.faults.launch.fail-at", "2")
			.withProperty("offload.test.faults.launch.sticky", "true")
			.withProperty("offload.test.faults.device", "1");
		FaultInjectingBackend faults = inject(2);
		try (DeviceRegistry registry = DeviceRegistry.builder(faults).build()) {
			runNoop(registry, 0);
			runNoop(registry, 0);
			runNoop(registry, 1);
			assertThatExceptionOfType(BackendException.class).isThrownBy(() -> runNoop(registry, 1))
				.withMessageContaining("INJECTED_STICKY_FAULT");
			OffloadAssertions.assertThat(registry.device(1)).hasFailedWith("injected sticky fault on call 2 of LAUNCH");
			OffloadAssertions.assertThat(registry.device(0)).isHealthy();
			runNoop(registry, 0);
		}
	}

	@Test
	void injectFaultsWhenAllocationsRunOutOfMemoryShouldRetryOnceThenThrowARetryableError() {
		this.environment.withProperty("offload.test.faults.allocate.fail-at", "1")
			.withProperty("offload.test.faults.allocate.out-of-memory", "true")
			.withProperty("offload.test.faults.allocate.times", "3");
		FaultInjectingBackend faults = inject(1);
		try (DeviceRegistry registry = DeviceRegistry.builder(faults).build()) {
			try (OffloadSession session = registry.openSession()) {
				assertThatExceptionOfType(DeviceOutOfMemoryException.class).isThrownBy(() -> session.allocate(4096))
					.withMessageContaining("requested 4096 bytes");
				// The third refusal is the retry of this allocation: the fourth succeeds.
				session.fill(session.allocate(4096), (byte) 1);
			}
			MemoryStatistics statistics = registry.device(0).memoryStatistics();
			assertThat(statistics.outOfMemoryRetries()).isEqualTo(2);
			assertThat(statistics.outOfMemoryFailures()).isEqualTo(1);
			assertThat(faults.injected(Operation.ALLOCATE)).isEqualTo(3);
			OffloadAssertions.assertThat(registry.device(0)).isHealthy().holdsNoMemoryBeyondItsCache();
		}
	}

	@Test
	void holdsNoMemoryBeyondItsCacheWhenABufferIsStillOpenShouldFailNamingIt() {
		try (DeviceRegistry registry = DeviceRegistry.builder(inject(1)).build()) {
			Device device = registry.device(0);
			DeviceBuffer buffer = device.allocate(1000);
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> OffloadAssertions.assertThat(device).holdsNoMemoryBeyondItsCache())
				.withMessageContaining("1024 device bytes and 0 page-locked bytes are in use");
			buffer.close();
			OffloadAssertions.assertThat(device).holdsNoMemoryBeyondItsCache();
		}
	}

	@Test
	void injectFaultsWhenOutOfMemoryHasNoFailAtShouldSayWhatIsMissing() {
		this.environment.withProperty("offload.test.faults.allocate.out-of-memory", "true");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(1))
			.withMessage(
					"offload.test.faults.allocate.out-of-memory is set without offload.test.faults.allocate.fail-at");
	}

	@Test
	void injectFaultsWhenAPropertyIsMistypedShouldNameItAndTheKnownOnes() {
		this.environment.withProperty("offload.test.faults.lanch.fail-at", "3");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(1))
			.withMessageContaining("Unknown fault properties [offload.test.faults.lanch.fail-at]")
			.withMessageContaining("offload.test.faults.launch.fail-at");
	}

	@Test
	void injectFaultsWhenStickyHasNoFailAtShouldSaySo() {
		this.environment.withProperty("offload.test.faults.synchronize.sticky", "true");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(1))
			.withMessage(
					"offload.test.faults.synchronize.sticky is set without offload.test.faults.synchronize.fail-at");
	}

	@Test
	void injectFaultsWhenFailAtIsBelowOneShouldSaySo() {
		this.environment.withProperty("offload.test.faults.copy.fail-at", "0");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(1))
			.withMessage("offload.test.faults.copy.fail-at must be 1 or more, was 0");
	}

	@Test
	void injectFaultsWhenTheDeviceDoesNotExistShouldNameTheProperty() {
		this.environment.withProperty("offload.test.faults.device", "3");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(2))
			.withMessageContaining("offload.test.faults.device names no device of the test's backend")
			.withMessageContaining("its devices are [0, 1]");
	}

	@Test
	void injectFaultsWhenAnXidIsSetShouldReportItOfThatDeviceAsTheRegistryStarts() {
		this.environment.withProperty("offload.test.faults.xid.1", "79");
		FaultInjectingBackend faults = inject(2);
		try (DeviceRegistry registry = DeviceRegistry.builder(faults).build()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> !registry.device(1).isHealthy());
			OffloadAssertions.assertThat(registry.device(1)).hasFailedWith("Xid 79");
			OffloadAssertions.assertThat(registry.device(0)).isHealthy();
		}
	}

	@Test
	void injectFaultsWhenAnXidNamesNoDeviceShouldNameTheProperty() {
		this.environment.withProperty("offload.test.faults.xid.4", "79");
		assertThatIllegalArgumentException().isThrownBy(() -> inject(2))
			.withMessageContaining("offload.test.faults.xid.4 (offload.test.faults.xid.<device>=<xid>) is invalid")
			.withMessageContaining("No device 4");
	}

	private FaultInjectingBackend inject(int devices) {
		return OffloadTestConfiguration.injectFaults(HostBackend.builder().deviceCount(devices).build(),
				this.environment);
	}

	private static void runNoop(DeviceRegistry registry, int deviceId) {
		try (OffloadSession session = registry.openSession(deviceId)) {
			session.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
			session.synchronize();
		}
	}

}
