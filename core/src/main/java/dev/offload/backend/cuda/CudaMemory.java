package dev.offload.backend.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * Device memory ({@code cuMemAllocAsync} from the device's default memory pool, or
 * {@code cuMemAlloc}) or page-locked, mapped host memory ({@code cuMemHostAlloc}), or a
 * part of such a host block. All have a device address, so copies and memsets take one
 * path; host memory also has a host view.
 */
final class CudaMemory implements NativeMemory {

	private final CudaDevice device;

	private final long size;

	private final CUdeviceptr address;

	/** The device address of the block's first byte, for libraries called by address. */
	private final long nativeAddress;

	private final @Nullable Pointer hostPointer;

	private final @Nullable ByteBuffer view;

	/** Allocated in a stream's order, so it can be freed in one. */
	private final boolean ordered;

	/** A part of a host block: the block is freed as a whole, never the part. */
	private final boolean part;

	private boolean freed;

	private CudaMemory(CudaDevice device, long size, CUdeviceptr address, long nativeAddress,
			@Nullable Pointer hostPointer, @Nullable ByteBuffer view, boolean ordered, boolean part) {
		this.device = device;
		this.size = size;
		this.address = address;
		this.nativeAddress = nativeAddress;
		this.hostPointer = hostPointer;
		this.view = view;
		this.ordered = ordered;
		this.part = part;
	}

	static CudaMemory device(CudaDevice device, CudaDevicePointer pointer, long size) {
		return new CudaMemory(device, size, pointer, pointer.address(), null, null, false, false);
	}

	static CudaMemory deviceOrdered(CudaDevice device, CudaDevicePointer pointer, long size) {
		return new CudaMemory(device, size, pointer, pointer.address(), null, null, true, false);
	}

	static CudaMemory host(CudaDevice device, Pointer host, CudaDevicePointer mapped, long size) {
		ByteBuffer view = host.getByteBuffer(0, Math.min(size, Integer.MAX_VALUE)).order(ByteOrder.LITTLE_ENDIAN);
		return new CudaMemory(device, size, mapped, mapped.address(), host, view, false, false);
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
	public @Nullable ByteBuffer hostView() {
		return (this.view != null) ? this.view.duplicate().order(ByteOrder.LITTLE_ENDIAN) : null;
	}

	@Override
	public @Nullable ByteBuffer sharedHostView() {
		return this.view;
	}

	@Override
	public Object handle() {
		return (this.hostPointer != null) ? this.hostPointer : this.address;
	}

	@Override
	public long nativeAddress() {
		return this.nativeAddress;
	}

	@Override
	public NativeMemory slice(long offset, long bytes) {
		if (this.hostPointer == null || offset < 0 || bytes < 1 || offset > this.size - bytes
				|| offset + bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"Cannot take [" + offset + ", " + offset + " + " + bytes + ") of " + this + " as a part");
		}
		ByteBuffer partView = Objects.requireNonNull(this.view)
			.slice((int) offset, (int) bytes)
			.order(ByteOrder.LITTLE_ENDIAN);
		return new CudaMemory(this.device, bytes, at(offset), this.nativeAddress + offset,
				this.hostPointer.withByteOffset(offset), partView, false, true);
	}

	@Override
	public synchronized void free() {
		if (this.freed || this.part) {
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
	public synchronized void free(BackendStream stream) {
		// The native handle, so that a decorated stream (a test's fault injector) is
		// freed in order too.
		if (!this.ordered || !(stream.handle() instanceof CUstream nativeStream)) {
			free();
			return;
		}
		if (this.freed) {
			return;
		}
		this.freed = true;
		try {
			this.device.makeCurrent();
			CudaErrors.checkQuietly("cuMemFreeAsync", CudaCalls.cuMemFreeAsync(this.address, nativeStream),
					this.device.ordinal());
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
