package dev.offload;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A device's memory budget never exceeds what MPS lets the process pin, and says what set
 * it, through {@link MemoryConfig#budgetOf(DeviceInfo)} and the memory statistics.
 */
class MemoryBudgetSourceTests {

	private static final long GIB = 1L << 30;

	private static final long TOTAL = 80 * GIB;

	@Test
	void budgetOfWhenBytesExceedThePinnedLimitShouldBeTheLimit() {
		MemoryConfig.DeviceBudget budget = MemoryConfig.ofBytes(16 * GIB).budgetOf(mpsClient(8 * GIB));
		assertThat(budget.bytes()).isEqualTo(8 * GIB);
		assertThat(budget.source())
			.isEqualTo("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (8192 MiB), below offload.memory.budget (16384 MiB)");
	}

	@Test
	void budgetOfWhenUnlimitedUnderAPinnedLimitShouldBeTheLimit() {
		MemoryConfig.DeviceBudget budget = MemoryConfig.UNLIMITED.budgetOf(mpsClient(8 * GIB));
		assertThat(budget.bytes()).isEqualTo(8 * GIB);
		assertThat(budget.source())
			.isEqualTo("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (8192 MiB), below offload.memory.budget (unlimited)");
	}

	@Test
	void budgetOfWhenBytesAreBelowThePinnedLimitShouldBeTheSetting() {
		MemoryConfig.DeviceBudget budget = MemoryConfig.ofBytes(4 * GIB).budgetOf(mpsClient(8 * GIB));
		assertThat(budget.bytes()).isEqualTo(4 * GIB);
		assertThat(budget.source()).isEqualTo("offload.memory.budget (4096 MiB)");
	}

	@Test
	void budgetOfWhenAShareUnderAPinnedLimitShouldBeTheShareOfTheLimit() {
		MemoryConfig.DeviceBudget budget = MemoryConfig.ofPercent(50).budgetOf(mpsClient(8 * GIB));
		assertThat(budget.bytes()).isEqualTo(4 * GIB);
		assertThat(budget.source()).isEqualTo(
				"offload.memory.budget (50% of 8192 MiB usable: MPS's pinned limit, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT)");
	}

	@Test
	void budgetOfWhenTimeSlicedShouldBeAShareOfTheDeclaredShare() {
		GpuSharing sharing = new GpuSharing(null, null, new GpuSharing.TimeSlicing(4), List.of());
		MemoryConfig.DeviceBudget budget = MemoryConfig.ofPercent(50).budgetOf(device(sharing));
		assertThat(budget.bytes()).isEqualTo(10 * GIB);
		assertThat(budget.source())
			.isEqualTo("offload.memory.budget (50% of 20480 MiB usable: the time-slicing share, GPU_SHARING_REPLICAS)");
	}

	@Test
	void budgetOfWhenExclusiveShouldBeTheDefaultShareOfTheTotal() {
		MemoryConfig.DeviceBudget budget = MemoryConfig.DEFAULTS.budgetOf(device(GpuSharing.EXCLUSIVE));
		assertThat(budget.bytes()).isEqualTo(72 * GIB);
		assertThat(budget.source()).isEqualTo("offload.memory.budget (90% of 81920 MiB usable: the device's total)");
	}

	@Test
	void memoryStatisticsShouldSayWhatSetTheBudget() {
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().memoryBytes(64L << 20).build())
			.memory(MemoryConfig.ofBytes(32L << 20))
			.build()) {
			MemoryStatistics statistics = registry.device(0).memoryStatistics();
			assertThat(statistics.budgetBytes()).isEqualTo(32L << 20);
			assertThat(statistics.budgetSource()).isEqualTo("offload.memory.budget (32 MiB)");
		}
	}

	private static DeviceInfo mpsClient(long pinnedBytes) {
		return device(new GpuSharing(null, new GpuSharing.Mps(true, null, pinnedBytes), null, List.of()));
	}

	private static DeviceInfo device(GpuSharing sharing) {
		return new DeviceInfo(0, "NVIDIA H100", 9, 0, TOTAL, 132, 0, -5, sharing);
	}

}
