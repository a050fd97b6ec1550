package dev.offload.spi;

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
 */
public record DeviceInfo(int id, String name, int computeCapabilityMajor, int computeCapabilityMinor,
		long totalMemoryBytes, int multiprocessorCount, int leastPriority, int greatestPriority) {

	/**
	 * Returns the compute capability as {@code major.minor}.
	 * @return e.g. {@code "9.0"}
	 */
	public String computeCapability() {
		return this.computeCapabilityMajor + "." + this.computeCapabilityMinor;
	}

}
