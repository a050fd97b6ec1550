package com.example.scaling;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import dev.offload.DeviceRegistry;
import dev.offload.HostStagingOutOfMemoryException;
import dev.offload.test.autoconfigure.OffloadTest;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.assertThatExceptionOfType;

/**
 * One injected out-of-memory on page-locked host staging: not retried, the README's
 * kernel call fails with {@link HostStagingOutOfMemoryException} and the next one runs.
 */
@OffloadTest(properties = { "offload.test.faults.allocate-host.fail-at=1",
		"offload.test.faults.allocate-host.out-of-memory=true" })
@Import(ReadmeScaler.class)
class HostStagingFaultTests {

	@Autowired
	private ReadmeScaler scaler;

	@Autowired
	private DeviceRegistry registry;

	@Autowired
	private FaultInjectingBackend faults;

	@Test
	void scaleWhenHostStagingRunsOutOfMemoryShouldFailWithHostStagingOutOfMemory() {
		assertThatExceptionOfType(HostStagingOutOfMemoryException.class)
			.isThrownBy(() -> this.scaler.scale(new float[] { 1, 2, 3 }, 2f))
			.withMessageContaining("could not get page-locked host memory for staging");
		assertThat(this.faults.injected(Operation.ALLOCATE_HOST)).isEqualTo(1);
		assertThat(this.faults.injected(Operation.ALLOCATE)).isZero();
		assertThat(this.registry.device(0).memoryStatistics().outOfMemoryFailures()).isEqualTo(1);
		assertThat(this.scaler.scale(new float[] { 1, 2, 3 }, 2f)).containsExactly(2f, 4f, 6f);
		assertThat(this.registry.device(0)).isHealthy().holdsNoMemoryBeyondItsCache();
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
