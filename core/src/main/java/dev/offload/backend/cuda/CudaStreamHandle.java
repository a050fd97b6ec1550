package dev.offload.backend.cuda;

import jcuda.driver.CUstream;

/**
 * A {@link CUstream} that knows its device, so that {@link CudaSessions} can find the
 * context of a session's stream.
 */
final class CudaStreamHandle extends CUstream {

	private final CudaDevice device;

	CudaStreamHandle(CudaDevice device) {
		this.device = device;
	}

	CudaDevice device() {
		return this.device;
	}

	/**
	 * Returns the stream's address, which the driver wrote when it created the stream.
	 * @return the {@code CUstream}'s value
	 */
	long address() {
		return getNativePointer();
	}

}
