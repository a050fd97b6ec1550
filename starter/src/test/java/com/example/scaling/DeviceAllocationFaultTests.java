package com.example.scaling;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.test.autoconfigure.OffloadTest;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * One injected out-of-memory on a device allocation, as {@code docs/testing.md} says: the
 * retry absorbs it in the README's kernel call.
 */
@OffloadTest(
		properties = { "offload.test.faults.allocate.fail-at=1", "offload.test.faults.allocate.out-of-memory=true" })
@Import(ReadmeScaler.class)
class DeviceAllocationFaultTests {

	@Autowired
	private ReadmeScaler scaler;

	@Autowired
	private DeviceRegistry registry;

	@Autowired
	private FaultInjectingBackend faults;

	@Test
	void scaleWhenOneDeviceAllocationRunsOutOfMemoryShouldSucceedThroughTheRetry() {
		assertThat(this.scaler.scale(new float[] { 1, 2, 3 }, 2f)).containsExactly(2f, 4f, 6f);
		MemoryStatistics memory = this.registry.device(0).memoryStatistics();
		assertThat(this.faults.injected(Operation.ALLOCATE)).isEqualTo(1);
		assertThat(memory.outOfMemoryRetries()).isEqualTo(1);
		assertThat(memory.outOfMemoryFailures()).isZero();
		assertThat(this.registry.device(0)).isHealthy().holdsNoMemoryBeyondItsCache();
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
