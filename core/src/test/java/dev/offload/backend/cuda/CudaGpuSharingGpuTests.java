package dev.offload.backend.cuda;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.spi.GpuSharing;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a real device says about its sharing: the mode, the evidence and the memory the
 * process may use, printed for the record. The assertions hold on any machine: a MIG
 * instance's name carries {@code MIG}, and the usable memory never exceeds the total.
 */
@GpuTests
class CudaGpuSharingGpuTests {

	@Test
	void sharingWhenDiscoveredShouldBeReportedConsistently() {
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create()).build()) {
			for (Device device : registry.devices()) {
				GpuSharing sharing = device.info().sharing();
				System.out.println("GPU sharing of device " + device.id() + " (" + device.name() + "): " + sharing
						+ "; evidence " + sharing.evidence() + "; usable memory " + device.info().usableMemoryBytes()
						+ " of " + device.info().totalMemoryBytes() + " bytes; environment "
						+ environment(List.of("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
								"CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
								"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "GPU_SHARING_STRATEGY")));
				assertThat(sharing.mig() != null).isEqualTo(device.name().contains("MIG")
						|| String.valueOf(System.getenv("CUDA_VISIBLE_DEVICES")).contains("MIG-")
						|| String.valueOf(System.getenv("NVIDIA_VISIBLE_DEVICES")).contains("MIG-"));
				assertThat(device.info().usableMemoryBytes()).isPositive()
					.isLessThanOrEqualTo(device.info().totalMemoryBytes());
				assertThat(sharing.mode()).matches("exclusive|mig|mps|time-slicing|mig\\+mps|mig\\+time-slicing"
						+ "|mps\\+time-slicing|mig\\+mps\\+time-slicing");
			}
		}
	}

	private static String environment(List<String> names) {
		StringBuilder text = new StringBuilder();
		for (String name : names) {
			text.append(name).append('=').append(System.getenv(name)).append(' ');
		}
		return text.toString().trim();
	}

}
