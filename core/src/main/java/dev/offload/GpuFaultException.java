package dev.offload;

import dev.offload.health.GpuFault;

/**
 * The GPU reported a fatal fault of a device (an Xid, through NVML): the cause of the
 * {@link DeviceFailedException} of every later session on it.
 */
public class GpuFaultException extends OffloadException {

	private final GpuFault fault;

	/**
	 * Creates an exception.
	 * @param fault the fault
	 */
	public GpuFaultException(GpuFault fault) {
		super("the GPU reported Xid " + fault.xid() + " (" + fault.meaning() + ") on device " + fault.deviceId()
				+ " at " + fault.time());
		this.fault = fault;
	}

	/**
	 * Returns the fault.
	 * @return the Xid, its time and meaning
	 */
	public GpuFault getFault() {
		return this.fault;
	}

}
