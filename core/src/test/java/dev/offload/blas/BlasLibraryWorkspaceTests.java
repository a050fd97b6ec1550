package dev.offload.blas;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.backend.host.HostBackend;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The workspace a cuBLAS handle takes: what cuBLAS recommends for the device's
 * architecture unless a size is set.
 */
class BlasLibraryWorkspaceTests {

	private static DeviceInfo device(int major, int minor) {
		return new DeviceInfo(0, "a GPU", major, minor, 80L << 30, 132, 0, -5, GpuSharing.EXCLUSIVE);
	}

	@Test
	void hopperAndLaterShouldGetThirtyTwoMebibytesAndEarlierFour() {
		assertThat(BlasLibrary.recommendedWorkspaceBytes(device(9, 0))).isEqualTo(32L << 20);
		assertThat(BlasLibrary.recommendedWorkspaceBytes(device(10, 0))).isEqualTo(32L << 20);
		assertThat(BlasLibrary.recommendedWorkspaceBytes(device(8, 9))).isEqualTo(4L << 20);
		assertThat(BlasLibrary.recommendedWorkspaceBytes(device(7, 5))).isEqualTo(4L << 20);
	}

	@Test
	void aSizeSetShouldHoldOnEveryDeviceAndTheDefaultFollowTheDevice() {
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).build()) {
			var device = registry.device(0);
			BlasLibrary standard = BlasLibrary.standard();
			assertThat(standard.workspaceBytes()).isEmpty();
			assertThat(standard.workspaceBytes(device)).isEqualTo(BlasLibrary.recommendedWorkspaceBytes(device.info()));
			BlasLibrary set = BlasLibrary.builder().workspaceBytes(8L << 20).build();
			assertThat(set.workspaceBytes()).hasValue(8L << 20);
			assertThat(set.workspaceBytes(device)).isEqualTo(8L << 20);
			BlasLibrary reset = BlasLibrary.builder().workspaceBytes(0).recommendedWorkspace().build();
			assertThat(reset.workspaceBytes()).isEmpty();
			assertThatIllegalArgumentException().isThrownBy(() -> standard.workspaceBytes(null));
		}
	}

}
