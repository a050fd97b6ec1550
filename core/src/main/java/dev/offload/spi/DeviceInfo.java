package dev.offload.spi;

import java.util.Objects;

/**
 * The static description of a device, as discovered by its {@link Backend}.
 *
 * @param id the device's ordinal within its backend, from 0
 * @param name the device's name, e.g. {@code "NVIDIA H200"}
 * @param computeCapabilityMajor the major compute capability (0 for emulated devices)
 * @param computeCapabilityMinor the minor compute capability
 * @param totalMemoryBytes the device's memory in bytes
 * @param multiprocessorCount the number of streaming multiprocessors (workers on the host
 * backend)
 * @param leastPriority the numerically lowest-precedence stream priority (CUDA: 0)
 * @param greatestPriority the highest-precedence stream priority (CUDA on an H200: -5)
 * @param sharing how the device is shared with other processes (MIG, MPS, time-slicing);
 * {@link GpuSharing#EXCLUSIVE} on the host emulation
 */
public record DeviceInfo(int id, String name, int computeCapabilityMajor, int computeCapabilityMinor,
		long totalMemoryBytes, int multiprocessorCount, int leastPriority, int greatestPriority, GpuSharing sharing) {

	/**
	 * Creates a description.
	 * @param id the device's ordinal within its backend, from 0
	 * @param name the device's name
	 * @param computeCapabilityMajor the major compute capability
	 * @param computeCapabilityMinor the minor compute capability
	 * @param totalMemoryBytes the device's memory in bytes
	 * @param multiprocessorCount the number of streaming multiprocessors
	 * @param leastPriority the numerically lowest-precedence stream priority
	 * @param greatestPriority the highest-precedence stream priority
	 * @param sharing how the device is shared
	 */
	public DeviceInfo {
		Objects.requireNonNull(sharing, "sharing must not be null");
	}

	/**
	 * Creates a description of a device that no other process shares
	 * ({@link GpuSharing#EXCLUSIVE}).
	 * @param id the device's ordinal within its backend, from 0
	 * @param name the device's name
	 * @param computeCapabilityMajor the major compute capability
	 * @param computeCapabilityMinor the minor compute capability
	 * @param totalMemoryBytes the device's memory in bytes
	 * @param multiprocessorCount the number of streaming multiprocessors
	 * @param leastPriority the numerically lowest-precedence stream priority
	 * @param greatestPriority the highest-precedence stream priority
	 */
	public DeviceInfo(int id, String name, int computeCapabilityMajor, int computeCapabilityMinor,
			long totalMemoryBytes, int multiprocessorCount, int leastPriority, int greatestPriority) {
		this(id, name, computeCapabilityMajor, computeCapabilityMinor, totalMemoryBytes, multiprocessorCount,
				leastPriority, greatestPriority, GpuSharing.EXCLUSIVE);
	}

	/**
	 * Returns the most device memory this process should use: the device's total, or less
	 * where its sharing says so: MPS's pinned device memory limit, or under declared
	 * time-slicing with a replica count, an even share of the total (time-slicing
	 * isolates no memory, so every container sharing the GPU allocates from the same
	 * total). A memory budget defaults to this.
	 * @return the usable memory in bytes
	 */
	public long usableMemoryBytes() {
		long usable = Math.min(this.totalMemoryBytes, this.sharing.memoryLimitBytes().orElse(Long.MAX_VALUE));
		GpuSharing.TimeSlicing timeSlicing = this.sharing.timeSlicing();
		if (timeSlicing != null && timeSlicing.replicas() != null) {
			usable = Math.min(usable, this.totalMemoryBytes / timeSlicing.replicas());
		}
		return usable;
	}

	/**
	 * Returns the compute capability as {@code major.minor}.
	 * @return e.g. {@code "9.0"}
	 */
	public String computeCapability() {
		return this.computeCapabilityMajor + "." + this.computeCapabilityMinor;
	}

}
