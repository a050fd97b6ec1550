package dev.offload.backend.cuda;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.offload.MemoryConfig;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link GpuSharingDetection} against fake environments, device names and attribute
 * values: what a MIG instance, an MPS client and a time-sliced GPU look like to the
 * process.
 */
class GpuSharingDetectionTests {

	private static final String UUID = "8932f937-d72c-4106-c12f-20bd9faed9f6";

	private static final long H200_BYTES = 150_000L << 20;

	private static final long MIG_BYTES = 16_896L << 20;

	@Test
	void detectWhenNothingIsSharedShouldBeExclusive() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("PATH", "/usr/bin"));
		assertThat(sharing).isSameAs(GpuSharing.EXCLUSIVE);
		assertThat(sharing.mode()).isEqualTo("exclusive");
		assertThat(sharing.memoryLimitBytes()).isEmpty();
	}

	@Test
	void detectWhenTheNameIsAMigInstanceShouldReportProfileUuidAndMemory() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200 MIG 1g.18gb", UUID, MIG_BYTES, 0, Map.of());
		assertThat(sharing.mode()).isEqualTo("mig");
		assertThat(sharing.mig()).isEqualTo(new GpuSharing.Mig("1g.18gb", "MIG-" + UUID, MIG_BYTES));
		assertThat(sharing.isComputeShared()).isFalse();
		assertThat(sharing.memoryLimitBytes()).as("the instance's memory is already the device's total").isEmpty();
		assertThat(sharing.evidence()).containsExactly("device name 'NVIDIA H200 MIG 1g.18gb'");
	}

	@Test
	void detectWhenVisibleDevicesNameAMigUuidShouldReportMig() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, MIG_BYTES, 0,
				Map.of("NVIDIA_VISIBLE_DEVICES", "MIG-" + UUID));
		assertThat(sharing.mode()).isEqualTo("mig");
		assertThat(sharing.mig().profile()).isNull();
		assertThat(sharing.evidence()).containsExactly("NVIDIA_VISIBLE_DEVICES=MIG-" + UUID);
	}

	@Test
	void detectWhenVisibleDevicesNameWholeGpusShouldNotReportMig() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("CUDA_VISIBLE_DEVICES", "GPU-8932f937", "NVIDIA_VISIBLE_DEVICES", "all"));
		assertThat(sharing.mode()).isEqualTo("exclusive");
	}

	@Test
	void detectWhenTheDriverConfirmsMpsShouldReadThreadShareAndThisDevicesMemoryLimit() {
		GpuSharing sharing = GpuSharingDetection.detect(1, "NVIDIA H200", UUID, H200_BYTES, 1,
				Map.of("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=1G,1=20G"));
		assertThat(sharing.mode()).isEqualTo("mps");
		assertThat(sharing.mps()).isEqualTo(new GpuSharing.Mps(true, 25, 20L << 30));
		assertThat(sharing.isComputeShared()).isTrue();
		assertThat(sharing.memoryLimitBytes()).hasValue(20L << 30);
		assertThat(sharing.evidence()).containsExactly("CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 1");
	}

	@Test
	void detectWhenTheDriverConfirmsMpsWithoutSettingsShouldSetNoLimits() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 1, Map.of());
		assertThat(sharing.mps()).isEqualTo(new GpuSharing.Mps(true, null, null));
		assertThat(sharing.memoryLimitBytes()).isEmpty();
	}

	@Test
	void detectWhenMpsVariablesAreSetButTheDriverSaysNoShouldNotReportMpsAndSayWhy() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=1G"));
		assertThat(sharing.mps()).isNull();
		assertThat(sharing.mode()).isEqualTo("exclusive");
		assertThat(sharing.memoryLimitBytes()).as("a limit that no MPS server enforces").isEmpty();
		assertThat(sharing.evidence()).singleElement()
			.asString()
			.contains(
					"CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT set, but CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 0");
	}

	@Test
	void detectWhenTheDriverCannotTellShouldTrustTheMpsVariablesUnconfirmed() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES,
				GpuSharingDetection.MPS_UNKNOWN, Map.of("CUDA_MPS_PIPE_DIRECTORY", "/var/run/mps",
						"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "GPU-8932f937=512MB"));
		assertThat(sharing.mps()).isEqualTo(new GpuSharing.Mps(false, null, 512L << 20));
		assertThat(sharing.evidence()).singleElement().asString().contains("the driver cannot confirm MPS");
	}

	@Test
	void detectWhenTheDriverCannotTellAndNothingIsSetShouldBeExclusive() {
		assertThat(GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, GpuSharingDetection.MPS_UNKNOWN,
				Map.of()))
			.isSameAs(GpuSharing.EXCLUSIVE);
	}

	@Test
	void detectWhenMpsRunsOnAMigInstanceShouldReportBoth() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200 MIG 3g.71gb", UUID, 71L << 30, 1,
				Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "MIG-8932=8G"));
		assertThat(sharing.mode()).isEqualTo("mig+mps");
		assertThat(sharing.memoryLimitBytes()).as("matched by the instance's MIG- UUID").hasValue(8L << 30);
	}

	@Test
	void detectWhenTheDeploymentDeclaresTimeSlicingShouldReportItsReplicas() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("GPU_SHARING_STRATEGY", "time-slicing", "GPU_SHARING_REPLICAS", "4"));
		assertThat(sharing.mode()).isEqualTo("time-slicing");
		assertThat(sharing.timeSlicing()).isEqualTo(new GpuSharing.TimeSlicing(4));
		assertThat(sharing.isComputeShared()).isTrue();
		assertThat(sharing.memoryLimitBytes()).as("time-slicing isolates no memory").isEmpty();
		DeviceInfo info = new DeviceInfo(0, "NVIDIA H200", 9, 0, H200_BYTES, 132, 0, -5, sharing);
		assertThat(info.usableMemoryBytes()).as("an even share of the GPU's memory").isEqualTo(H200_BYTES / 4);
	}

	@Test
	void usableMemoryWhenTimeSlicingDeclaresNoReplicasShouldBeTheTotal() {
		GpuSharing sharing = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("GPU_SHARING_STRATEGY", "time-slicing"));
		assertThat(new DeviceInfo(0, "NVIDIA H200", 9, 0, H200_BYTES, 132, 0, -5, sharing).usableMemoryBytes())
			.isEqualTo(H200_BYTES);
	}

	@Test
	void detectWhenTheStrategyIsNoneShouldBeExclusive() {
		assertThat(GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
				Map.of("GPU_SHARING_STRATEGY", "none")))
			.isSameAs(GpuSharing.EXCLUSIVE);
	}

	@Test
	void detectWhenTheStrategyIsUnknownShouldNameTheVariableAndTheValue() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
					Map.of("GPU_SHARING_STRATEGY", "timeslicing")))
			.withMessage("GPU_SHARING_STRATEGY must be one of none, time-slicing or mps (as GPU Feature Discovery's "
					+ "label nvidia.com/gpu.sharing-strategy), was 'timeslicing'");
	}

	@Test
	void detectWhenReplicasAreNotANumberShouldSaySo() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 0,
					Map.of("GPU_SHARING_STRATEGY", "time-slicing", "GPU_SHARING_REPLICAS", "0")))
			.withMessage("GPU_SHARING_REPLICAS must be a whole number of at least 1, was '0'");
	}

	@Test
	void detectWhenThePinnedLimitHasNoUnitShouldNameTheEntry() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 1,
					Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=lots")))
			.withMessageStartingWith("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT must list <device>=<size> entries")
			.withMessageEndingWith("size 'lots' is not a number with a unit such as 512M or 2G");
	}

	@Test
	void detectWhenThePinnedLimitHasNoDeviceShouldNameTheEntry() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 1,
					Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "2G")))
			.withMessageEndingWith("entry '2G' is not <device>=<size>");
	}

	@Test
	void detectWhenTheThreadPercentageIsOutOfRangeShouldSaySo() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 1,
					Map.of("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "150")))
			.withMessage("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE must be a percentage above 0 and at most 100, was '150'");
	}

	@Test
	void pinnedMemoryLimitWhenAnotherDeviceIsListedShouldBeAbsent() {
		assertThat(GpuSharingDetection.pinnedMemoryLimit(2, "GPU-" + UUID,
				Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=1G,1=2G")))
			.isNull();
	}

	@Test
	void budgetWhenEachDeviceHasAPinnedLimitShouldBeItsOwnEntry() {
		Map<String, String> environment = Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=1G,1=2G");
		GpuSharing second = GpuSharingDetection.detect(1, "NVIDIA H200", UUID, H200_BYTES, 1, environment);
		DeviceInfo device = new DeviceInfo(1, "NVIDIA H200", 9, 0, H200_BYTES, 132, 0, -5, second);
		MemoryConfig.DeviceBudget budget = MemoryConfig.ofBytes(100L << 30).budgetOf(device);
		assertThat(budget.bytes()).isEqualTo(2L << 30);
		assertThat(budget.source()).startsWith("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (2048 MiB)");
	}

	@Test
	void usableMemoryWhenMpsPinsALimitShouldBeTheLimitNotTheTotal() {
		GpuSharing mps = GpuSharingDetection.detect(0, "NVIDIA H200", UUID, H200_BYTES, 1,
				Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=24G"));
		DeviceInfo shared = new DeviceInfo(0, "NVIDIA H200", 9, 0, H200_BYTES, 132, 0, -5, mps);
		DeviceInfo exclusive = new DeviceInfo(0, "NVIDIA H200", 9, 0, H200_BYTES, 132, 0, -5);
		assertThat(shared.usableMemoryBytes()).isEqualTo(24L << 30);
		assertThat(exclusive.usableMemoryBytes()).isEqualTo(H200_BYTES);
		assertThat(exclusive.sharing()).isSameAs(GpuSharing.EXCLUSIVE);
	}

}
