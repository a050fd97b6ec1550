package dev.offload.health;

import java.time.Instant;
import java.util.Objects;

/**
 * A fault the GPU reported itself (an Xid error, through NVML), as Offload classed it.
 *
 * @param deviceId the device it happened on
 * @param xid the Xid number
 * @param time when Offload read the report
 * @param meaning what NVIDIA's Xid catalog says it is
 * @param fatal whether it failed the device ({@code true}) or only degraded it
 */
public record GpuFault(int deviceId, int xid, Instant time, String meaning, boolean fatal) {

	/**
	 * Creates a fault.
	 * @param deviceId the device it happened on
	 * @param xid the Xid number
	 * @param time when Offload read the report
	 * @param meaning what NVIDIA's Xid catalog says it is
	 * @param fatal whether it failed the device
	 */
	public GpuFault {
		Objects.requireNonNull(time, "time must not be null");
		Objects.requireNonNull(meaning, "meaning must not be null");
	}

	@Override
	public String toString() {
		return "Xid " + this.xid + " (" + this.meaning + ") at " + this.time;
	}

}
