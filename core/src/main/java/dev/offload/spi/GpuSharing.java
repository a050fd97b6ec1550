package dev.offload.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

/**
 * How a device is shared with other processes, as far as the process can tell: a MIG
 * instance (a fixed slice of a GPU's multiprocessors and memory), a client of an MPS
 * server (other processes' kernels run beside this one's, with an optional share of the
 * threads and a pinned memory limit), time-slicing (the device plugin gives the same GPU
 * to several containers, which take turns), or none of these ({@link #EXCLUSIVE}). MIG
 * and MPS or time-slicing can hold together (MPS on a MIG instance, time-sliced MIG
 * instances).
 * <p>
 * Time-slicing is invisible to the process: the device plugin hands out the same GPU more
 * than once and tells the container nothing. It shows here only when the deployment
 * declares it ({@code GPU_SHARING_STRATEGY=time-slicing}, the value of GPU Feature
 * Discovery's {@code nvidia.com/gpu.sharing-strategy} label).
 *
 * @param mig the MIG instance this device is, or {@code null} if it is not one
 * @param mps the MPS settings this process runs under, or {@code null} if it is no MPS
 * client
 * @param timeSlicing the declared time-slicing, or {@code null} if none is declared
 * @param evidence how each mode was recognised (a device attribute, the device's name, an
 * environment variable), for the startup log and the endpoint
 */
public record GpuSharing(@Nullable Mig mig, @Nullable Mps mps, @Nullable TimeSlicing timeSlicing,
		List<String> evidence) {

	/**
	 * A device that is not shared as far as the process can tell; the host emulation's
	 * devices are always this.
	 */
	public static final GpuSharing EXCLUSIVE = new GpuSharing(null, null, null, List.of());

	/**
	 * Creates a description.
	 * @param mig the MIG instance, or {@code null}
	 * @param mps the MPS settings, or {@code null}
	 * @param timeSlicing the declared time-slicing, or {@code null}
	 * @param evidence how each mode was recognised
	 */
	public GpuSharing {
		evidence = List.copyOf(Objects.requireNonNull(evidence, "evidence must not be null"));
	}

	/**
	 * Returns the sharing mode in one word, the form the endpoint, the health details and
	 * the log show: {@code exclusive}, or the modes that hold joined by {@code +}
	 * ({@code mig}, {@code mps}, {@code time-slicing}, e.g. {@code mig+mps}).
	 * @return the mode
	 */
	public String mode() {
		List<String> modes = new ArrayList<>(3);
		if (this.mig != null) {
			modes.add("mig");
		}
		if (this.mps != null) {
			modes.add("mps");
		}
		if (this.timeSlicing != null) {
			modes.add("time-slicing");
		}
		return modes.isEmpty() ? "exclusive" : String.join("+", modes);
	}

	/**
	 * Returns whether other processes may run work on the same multiprocessors (MPS or
	 * time-slicing): the device's throughput is then not this process's alone.
	 * @return whether the device's compute is shared
	 */
	public boolean isComputeShared() {
		return this.mps != null || this.timeSlicing != null;
	}

	/**
	 * Returns the most device memory this process may hold, where the sharing sets a
	 * limit the device's total does not show: MPS's pinned device memory limit. A MIG
	 * instance needs none, because the device's total memory already is the instance's.
	 * {@link DeviceInfo#usableMemoryBytes()} combines it with the total and with
	 * time-slicing's share; a memory budget defaults to that.
	 * @return the limit in bytes, or empty when the sharing sets none
	 */
	public OptionalLong memoryLimitBytes() {
		return (this.mps != null && this.mps.pinnedMemoryLimitBytes() != null)
				? OptionalLong.of(this.mps.pinnedMemoryLimitBytes()) : OptionalLong.empty();
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(mode());
		if (this.mig != null) {
			text.append(", MIG ").append(this.mig);
		}
		if (this.mps != null) {
			text.append(", MPS ").append(this.mps);
		}
		if (this.timeSlicing != null) {
			text.append(", time-slicing ").append(this.timeSlicing);
		}
		return text.toString();
	}

	/**
	 * A MIG instance.
	 *
	 * @param profile the instance's profile from the device's name, e.g.
	 * {@code "1g.18gb"}, or {@code null} if the name does not carry one
	 * @param uuid the instance's UUID ({@code MIG-...}), or {@code null} if unknown
	 * @param memoryBytes the instance's memory in bytes (the device's total as CUDA
	 * reports it)
	 */
	public record Mig(@Nullable String profile, @Nullable String uuid, long memoryBytes) {

		@Override
		public String toString() {
			return ((this.profile != null) ? this.profile : "instance") + " (" + (this.memoryBytes >> 20) + " MiB"
					+ ((this.uuid != null) ? ", " + this.uuid : "") + ")";
		}

	}

	/**
	 * The MPS settings of this client process.
	 *
	 * @param confirmed whether the driver confirmed that contexts on the device are
	 * shared through MPS ({@code CU_DEVICE_ATTRIBUTE_MPS_ENABLED}); {@code false} when
	 * only the environment says so (a driver older than CUDA 12.4 cannot tell)
	 * @param activeThreadPercentage the share of the device's threads this client may use
	 * ({@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}), or {@code null} for all
	 * @param pinnedMemoryLimitBytes the device memory this client may allocate
	 * ({@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}), or {@code null} for no limit
	 */
	public record Mps(boolean confirmed, @Nullable Integer activeThreadPercentage,
			@Nullable Long pinnedMemoryLimitBytes) {

		@Override
		public String toString() {
			return ((this.activeThreadPercentage != null) ? this.activeThreadPercentage + "% of the threads"
					: "all threads") + ", "
					+ ((this.pinnedMemoryLimitBytes != null) ? (this.pinnedMemoryLimitBytes >> 20) + " MiB pinned limit"
							: "no memory limit")
					+ (this.confirmed ? "" : ", from the environment only");
		}

	}

	/**
	 * Time-slicing as the deployment declares it.
	 *
	 * @param replicas how many containers share the GPU ({@code GPU_SHARING_REPLICAS}, as
	 * GPU Feature Discovery's {@code nvidia.com/gpu.replicas}), or {@code null} if not
	 * declared
	 */
	public record TimeSlicing(@Nullable Integer replicas) {

		@Override
		public String toString() {
			return (this.replicas != null) ? this.replicas + " replicas" : "replicas not declared";
		}

	}

}
