package dev.offload;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasException;
import dev.offload.blas.BlasLibrary;
import dev.offload.test.OffloadAssertions;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * BLAS calls over the fault-injecting backend: a library failure fails the call and the
 * session's work (its stream, and the handle with it, are discarded), a sticky one the
 * device.
 */
class BlasUnderFaultsTests {

	private FaultInjectingBackend faults;

	private DeviceRegistry registry;

	private Device device;

	@BeforeEach
	void setUp() {
		this.faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(1).workersPerDevice(2).build());
		this.registry = DeviceRegistry.builder(this.faults)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.build();
		this.device = this.registry.device(0);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void aLibraryFailureShouldFailTheCallAndTheSessionsWork() {
		BlasLibrary library = BlasLibrary.builder().build();
		this.faults.failNth(Operation.LIBRARY, 2);
		OffloadSession session = this.device.openSession();
		DeviceBuffer x = session.allocate(4 * Float.BYTES);
		session.fill(x, (byte) 0);
		Blas blas = library.on(session);
		blas.saxpy(4, 1, x, 1, x, 1);
		assertThatExceptionOfType(BlasException.class).isThrownBy(() -> blas.saxpy(4, 1, x, 1, x, 1))
			.satisfies((ex) -> {
				assertThat(ex.getCall()).isEqualTo("saxpy");
				assertThat(ex.getStatusName()).isEqualTo("INJECTED_FAULT");
				assertThat(ex.isSticky()).isFalse();
			});
		assertThat(session.failure()).isNotNull();
		session.close();
		assertThat(this.faults.injected(Operation.LIBRARY)).isEqualTo(1);
		assertThat(library.statistics(this.device).failedCalls()).isEqualTo(1);
		// The failed session's stream was discarded, and its handle closed with it.
		assertThat(library.statistics(this.device).openHandles()).isZero();
		OffloadAssertions.assertThat(this.device).isHealthy();
	}

	@Test
	void aStickyLibraryFailureShouldFailTheDevice() {
		this.faults.failStickyNth(Operation.LIBRARY, 1);
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer x = session.allocate(Float.BYTES);
			assertThatExceptionOfType(BlasException.class).isThrownBy(() -> Blas.on(session).saxpy(1, 1, x, 1, x, 1))
				.satisfies((ex) -> assertThat(ex.isSticky()).isTrue());
		}
		OffloadAssertions.assertThat(this.device).hasFailedWith("injected sticky fault");
	}

}
