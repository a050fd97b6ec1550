package com.example.scaling;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import dev.offload.DeviceRegistry;
import dev.offload.spi.BackendException;
import dev.offload.test.autoconfigure.OffloadTest;

import static dev.offload.test.OffloadAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The example of docs/testing.md: a faulty device end to end, through {@code @OffloadTest} and fault properties.
 */
@OffloadTest(devices = 2,
		properties = { "offload.test.faults.launch.fail-at=1", "offload.test.faults.launch.sticky=true" })
@Import(ScalingService.class)
class ScalingServiceTests {

	@Autowired
	private ScalingService scaling;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void scaleWhenTheFirstLaunchFaultsStickyShouldLoseOnlyThatDevice() {
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> this.scaling.scale(0, new float[] { 1, 2, 3 }, 2f))
			.withMessageContaining("INJECTED_STICKY_FAULT");
		assertThat(this.registry.device(0)).hasFailedWith("INJECTED_STICKY_FAULT");
		assertThat(this.registry.device(1)).isHealthy();
		assertThat(this.scaling.scale(1, new float[] { 1, 2, 3 }, 2f)).containsExactly(2f, 4f, 6f);
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
