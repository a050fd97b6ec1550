package dev.offload.test.fault;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.CapturedFlow;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.HostBuffer;
import dev.offload.HostStagingOutOfMemoryException;
import dev.offload.KernelModule;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class FaultInjectingBackendTests {

	private static final ModuleDefinition MODULE = ModuleDefinition.builder("faults")
		.hostKernel("noop", List.of(), (t) -> {
		})
		.build();

	private FaultInjectingBackend faults;

	private DeviceRegistry registry;

	private Device device;

	private KernelModule module;

	private void start(StreamPoolConfig config) {
		this.faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).workersPerDevice(2).build());
		this.registry = DeviceRegistry.builder(this.faults).streamPool(config).build();
		this.device = this.registry.device(0);
		this.module = this.device.loadModule(MODULE);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	private void launchNoop(OffloadSession session) {
		session.launch(this.module.kernel("noop"), LaunchConfig.of(1, 1));
	}

	@Test
	void nthLaunchShouldFailItsSessionOnly() {
		start(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		this.faults.failNth(Operation.LAUNCH, 2);
		try (OffloadSession first = this.device.openSession()) {
			launchNoop(first);
		}
		OffloadSession second = this.device.openSession();
		launchNoop(second);
		assertThatExceptionOfType(BackendException.class).isThrownBy(second::close)
			.withMessage("kernel 'noop' failed on device 0: INJECTED_FAULT (injected fault on call 2 of LAUNCH)");
		try (OffloadSession third = this.device.openSession()) {
			launchNoop(third);
		}
		assertThat(this.faults.injected(Operation.LAUNCH)).isEqualTo(1);
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
		assertThat(this.device.isHealthy()).isTrue();
	}

	@Test
	void rulesOfOneOperationShouldAllFireAsTheClassDocumentsThem() {
		start(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		// The 1st launch fails, the 3rd kills the device: a later rule adds, not
		// replaces.
		this.faults.failNth(Operation.LAUNCH, 1).failStickyNth(Operation.LAUNCH, 3);
		OffloadSession first = this.device.openSession();
		launchNoop(first);
		assertThatExceptionOfType(BackendException.class).isThrownBy(first::close)
			.withMessageContaining("injected fault on call 1 of LAUNCH");
		try (OffloadSession second = this.device.openSession()) {
			launchNoop(second);
		}
		OffloadSession third = this.device.openSession();
		launchNoop(third);
		assertThatExceptionOfType(BackendException.class).isThrownBy(third::close)
			.withMessageContaining("injected sticky fault on call 3 of LAUNCH");
		assertThat(this.faults.injected(Operation.LAUNCH)).isEqualTo(2);
		assertThat(this.device.isHealthy()).isFalse();
	}

	@Test
	void pageLockedAllocationWhenTheHostIsOutOfMemoryShouldThrowTheTypedRetryableError() {
		start(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		this.faults.failOutOfMemoryNth(Operation.ALLOCATE_HOST, 1, 1);
		assertThatExceptionOfType(HostStagingOutOfMemoryException.class)
			.isThrownBy(() -> this.device.allocateHost(4096))
			.isInstanceOf(DeviceOutOfMemoryException.class)
			.withMessageStartingWith("Device 0 could not get page-locked host memory for staging: the host refused "
					+ 4 * 1024 * 1024 + " bytes")
			.withCauseInstanceOf(BackendException.class)
			.satisfies((ex) -> {
				assertThat(ex.getDeviceId()).isZero();
				assertThat(ex.getRequestedBytes()).isEqualTo(4 * 1024 * 1024);
				assertThat(ex.getUsedBytes()).isZero();
				assertThat(ex.getFreeBytes()).isEqualTo(-1);
			});
		try (OffloadSession session = this.device.openSession()) {
			assertThat(session.allocateHost(4096).size()).isEqualTo(4096);
		}
		assertThat(this.device.isHealthy()).isTrue();
		assertThat(this.device.memoryStatistics().outOfMemoryFailures()).isEqualTo(1);
		assertThat(this.device.memoryStatistics().hostUsedBytes()).isZero();
	}

	@Test
	void capturedFlowShouldReplayThroughTheWrapperAndAFailedReplayShouldFailItsSession() {
		start(StreamPoolConfig.DEFAULTS.withInitialSize(2));
		HostBuffer input = this.device.allocateHost(8);
		DeviceBuffer copy = this.device.allocate(8);
		HostBuffer output = this.device.allocateHost(8);
		input.putLongs(0, new long[] { 42 });
		CapturedFlow flow;
		try (OffloadSession session = this.device.openSession()) {
			flow = CapturedFlow.capture(session, (steps) -> steps.copy(input, copy).copy(copy, output));
			flow.replay(session);
		}
		assertThat(output.getLongs(0, new long[1])).containsExactly(42);
		this.faults.failNth(Operation.LAUNCH, 1);
		OffloadSession failing = this.device.openSession();
		flow.replay(failing);
		assertThatExceptionOfType(BackendException.class).isThrownBy(failing::close)
			.withMessageContaining("graph failed on device 0: INJECTED_FAULT");
		flow.close();
		// Left open, the page-locked buffers hold the registry's close for its whole
		// await-termination.
		input.close();
		copy.close();
		output.close();
	}

	@Test
	void failedStreamCreationShouldReachTheBorrower() {
		start(StreamPoolConfig.DEFAULTS.withInitialSize(1));
		this.faults.failNth(Operation.CREATE_STREAM, 1);
		OffloadSession session = this.device.openSession();
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> launchNoop(session))
			.withMessageContaining("createStream failed on device 0: INJECTED_FAULT");
		session.close();
		try (OffloadSession next = this.device.openSession()) {
			launchNoop(next);
		}
		assertThat(this.device.streamPool().statistics().created()).isEqualTo(1);
	}

	@Test
	void stickyFaultShouldKillOnlyItsDevice() {
		start(StreamPoolConfig.DEFAULTS);
		this.faults.failStickyNth(Operation.SYNCHRONIZE, 1);
		OffloadSession session = this.device.openSession();
		launchNoop(session);
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::synchronize)
			.withMessageContaining("INJECTED_STICKY_FAULT");
		session.close();
		assertThat(this.device.isHealthy()).isFalse();
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(this.device::openSession);
		Device other = this.registry.device(1);
		KernelModule otherModule = other.loadModule(MODULE);
		try (OffloadSession healthy = other.openSession()) {
			healthy.launch(otherModule.kernel("noop"), LaunchConfig.of(1, 1));
		}
		assertThat(other.isHealthy()).isTrue();
	}

	@Test
	void failingQueryShouldFailTheAsyncClose() {
		start(StreamPoolConfig.DEFAULTS);
		this.faults.failAtRate(Operation.QUERY, 1.0, 1);
		OffloadSession session = this.device.openSession();
		launchNoop(session);
		assertThat(session.closeAsync()).failsWithin(Duration.ofSeconds(30))
			.withThrowableOfType(java.util.concurrent.ExecutionException.class)
			.withCauseInstanceOf(BackendException.class);
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
		assertThat(this.device.streamPool().inUse()).isZero();
	}

	@Test
	void delayShouldSlowTheOperationDown() {
		start(StreamPoolConfig.DEFAULTS);
		this.faults.delay(Operation.SYNCHRONIZE, Duration.ofMillis(20));
		try (OffloadSession session = this.device.openSession()) {
			launchNoop(session);
			long start = System.nanoTime();
			session.synchronize();
			assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
		}
		// close() does not synchronize again: nothing was enqueued after the synchronize.
		assertThat(this.faults.calls(Operation.SYNCHRONIZE)).isEqualTo(1);
	}

	@Test
	void badRuleValuesShouldBeRejected() {
		start(StreamPoolConfig.DEFAULTS);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.faults.failNth(Operation.COPY, 0))
			.withMessage("n must be at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.faults.failAtRate(Operation.COPY, 1.5, 0))
			.withMessage("rate must be between 0 and 1, was 1.5");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.faults.delay(Operation.COPY, Duration.ofMillis(-1)))
			.withMessage("delay must be at least 0, was PT-0.001S");
	}

}
