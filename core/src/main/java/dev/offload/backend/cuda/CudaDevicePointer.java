package dev.offload.backend.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * A {@link CUdeviceptr} that tells its address: JCuda keeps it in a protected field,
 * which a subclass reads without reflection. The driver writes the address into it when
 * it allocates ({@code cuMemAlloc}, {@code cuMemAllocAsync}) or maps
 * ({@code cuMemHostGetDevicePointer}).
 */
final class CudaDevicePointer extends CUdeviceptr {

	/**
	 * Returns the device address the driver wrote.
	 * @return the address, 0 before the driver wrote it
	 */
	long address() {
		return getNativePointer();
	}

}
