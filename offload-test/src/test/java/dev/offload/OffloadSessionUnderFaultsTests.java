package dev.offload;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.test.OffloadAssertions;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Sessions over the fault-injecting backend: a device lost under an open session, and the
 * backend calls a session's close makes, counted by the decorator. Core's own tests
 * cannot use the decorator (core is its dependency).
 */
class OffloadSessionUnderFaultsTests {

	private FaultInjectingBackend faults;

	private DeviceRegistry registry;

	private Device device;

	@BeforeEach
	void setUp() {
		this.faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(4).build());
		this.registry = DeviceRegistry.builder(this.faults)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.device = this.registry.device(0);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void closeWhenTheDeviceFailedUnderTheSessionShouldFailTheSessionAndTheDevice() {
		OffloadSession session = this.device.openSession();
		session.fill(session.allocate(8), (byte) 0);
		this.faults.failDevice(0, "simulated Xid 79");
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::close)
			.withMessageContaining("simulated Xid 79");
		OffloadAssertions.assertThat(this.device).hasFailedWith("simulated Xid 79");
		OffloadAssertions.assertThat(this.registry.device(1)).isHealthy();
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(this.device::openSession);
	}

	@Test
	void closeAfterSynchronizeWithNothingEnqueuedSinceShouldNotSynchronizeAgain() {
		OffloadSession session = this.device.openSession();
		session.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
		session.synchronize();
		session.close();
		assertThat(this.faults.calls(Operation.SYNCHRONIZE)).isEqualTo(1);
		OffloadAssertions.assertThat(this.device.streamPool()).hasNothingLent().hasIdle(4);
		OffloadSession asynchronous = this.device.openSession();
		asynchronous.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
		asynchronous.synchronize();
		assertThat(asynchronous.closeAsync()).isCompleted();
		assertThat(this.faults.calls(Operation.SYNCHRONIZE)).isEqualTo(2);
		assertThat(this.faults.calls(Operation.QUERY)).isZero();
	}

	@Test
	void closeWhenWorkEnqueuedSinceSynchronizeOrStreamUnwrappedShouldSynchronize() {
		try (OffloadSession session = this.device.openSession()) {
			session.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
			session.synchronize();
			session.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
		}
		assertThat(this.faults.calls(Operation.SYNCHRONIZE)).isEqualTo(2);
		try (OffloadSession session = this.device.openSession()) {
			// Another library may enqueue on the native stream behind the session's back.
			session.unwrap(Object.class);
			session.synchronize();
		}
		assertThat(this.faults.calls(Operation.SYNCHRONIZE)).isEqualTo(4);
	}

}
