package dev.offload.backend.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import dev.offload.BackendException;
import dev.offload.spi.NativeMemory;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * Device memory ({@code cuMemAlloc}) or page-locked, mapped host memory
 * ({@code cuMemHostAlloc}). Both have a device address, so copies and memsets take one
 * path; host memory also has a host view.
 */
final class CudaMemory implements NativeMemory {

	private final CudaDevice device;

	private final long size;

	private final CUdeviceptr address;

	private final Pointer hostPointer;

	private final ByteBuffer view;

	private boolean freed;

	private CudaMemory(CudaDevice device, long size, CUdeviceptr address, Pointer hostPointer) {
		this.device = device;
		this.size = size;
		this.address = address;
		this.hostPointer = hostPointer;
		this.view = (hostPointer != null)
				? hostPointer.getByteBuffer(0, Math.min(size, Integer.MAX_VALUE)).order(ByteOrder.LITTLE_ENDIAN) : null;
	}

	static CudaMemory device(CudaDevice device, CUdeviceptr pointer, long size) {
		return new CudaMemory(device, size, pointer, null);
	}

	static CudaMemory host(CudaDevice device, Pointer host, CUdeviceptr mapped, long size) {
		return new CudaMemory(device, size, mapped, host);
	}

	/**
	 * Returns the device address {@code offset} bytes into the block.
	 * @param offset the offset
	 * @return the address (the block's own pointer for offset 0)
	 */
	CUdeviceptr at(long offset) {
		return (offset == 0) ? this.address : this.address.withByteOffset(offset);
	}

	@Override
	public long size() {
		return this.size;
	}

	@Override
	public boolean isHost() {
		return this.hostPointer != null;
	}

	@Override
	public ByteBuffer hostView() {
		return (this.view != null) ? this.view.duplicate().order(ByteOrder.LITTLE_ENDIAN) : null;
	}

	@Override
	public Object handle() {
		return (this.hostPointer != null) ? this.hostPointer : this.address;
	}

	@Override
	public synchronized void free() {
		if (this.freed) {
			return;
		}
		this.freed = true;
		try {
			this.device.makeCurrent();
			if (this.hostPointer != null) {
				CudaErrors.checkQuietly("cuMemFreeHost", CudaCalls.cuMemFreeHost(this.hostPointer),
						this.device.ordinal());
			}
			else {
				CudaErrors.checkQuietly("cuMemFree", CudaCalls.cuMemFree(this.address), this.device.ordinal());
			}
		}
		catch (BackendException ex) {
			CudaErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public String toString() {
		return (isHost() ? "CudaHostMemory[" : "CudaDeviceMemory[") + this.size + " bytes on device "
				+ this.device.ordinal() + "]";
	}

}
