package com.example.scaling;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.OffloadTest;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.assertThatExceptionOfType;

/**
 * The application's service on two emulated devices, the first launch on device 1
 * faulting sticky.
 */
@OffloadTest(devices = 2,
		properties = { "offload.test.faults.device=1", "offload.test.faults.launch.fail-at=1",
				"offload.test.faults.launch.sticky=true" })
@Import(ScalingService.class)
class ScalingServiceTests {

	@Autowired
	private ScalingService scaling;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void scaleWhenALaunchFaultsStickyShouldLoseOnlyThatDevice() {
		assertThat(this.scaling.scale(0, new float[] { 1, 2, 3 }, 2f)).containsExactly(2f, 4f, 6f);
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> this.scaling.scale(1, new float[] { 1, 2, 3 }, 2f))
			.withMessageContaining("INJECTED_STICKY_FAULT");
		assertThat(this.registry.device(1)).hasFailedWith("INJECTED_STICKY_FAULT");
		assertThat(this.registry.device(0)).isHealthy();
		assertThat(this.scaling.scale(0, new float[] { 4 }, 0.5f)).containsExactly(2f);
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
