package com.example.scaling;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import dev.offload.BackendException;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.OffloadTest;
import dev.offload.test.fault.FaultInjectingBackend;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.assertThatExceptionOfType;

/**
 * A device lost while the application runs, failed at will through the test's backend.
 */
@OffloadTest(devices = 2)
@Import(ScalingService.class)
@DirtiesContext // a lost device stays lost: no other test class may reuse this context
class DeviceLossTests {

	@Autowired
	private ScalingService scaling;

	@Autowired
	private FaultInjectingBackend faults;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void scaleWhenADeviceIsLostShouldFailThereAndServeOnTheOther() {
		this.faults.failDevice(1, "Xid 79: the GPU has fallen off the bus");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> this.scaling.scale(1, new float[] { 1 }, 2f))
			.withMessageContaining("Xid 79");
		assertThat(this.registry.device(1)).hasFailedWith("Xid 79");
		assertThatExceptionOfType(DeviceFailedException.class)
			.isThrownBy(() -> this.scaling.scale(1, new float[] { 1 }, 2f));
		assertThat(this.scaling.scale(0, new float[] { 1, 2 }, 3f)).containsExactly(3f, 6f);
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
