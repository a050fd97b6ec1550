package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * Device memory ({@code cuMemAllocAsync} from the device's default memory pool, or
 * {@code cuMemAlloc}) or page-locked, mapped host memory ({@code cuMemHostAlloc}), or a
 * part of such a host block, as the JCuda binding's {@code CudaMemory}. All have a device
 * address, so copies and memsets take one path; its {@link #handle()} is that address as
 * a {@link Long} (for host memory, the host address, the same under unified addressing).
 * <p>
 * Host memory is seen from Java through a segment of an arena of its own, closed before
 * the memory is freed: a view kept past {@link #free()} throws
 * {@link IllegalStateException} when used instead of touching freed memory.
 */
final class FfmMemory implements NativeMemory, KernelParameters.DeviceAddress {

	private final FfmDevice device;

	private final long size;

	private final long address;

	private final Long handle;

	private final @Nullable Host host;

	private final @Nullable ByteBuffer view;

	/** Allocated in a stream's order, so it can be freed in one. */
	private final boolean ordered;

	/** A part of a host block: the block is freed as a whole, never the part. */
	private final boolean part;

	private boolean freed;

	private FfmMemory(FfmDevice device, long size, long address, long handle, @Nullable Host host,
			@Nullable ByteBuffer view, boolean ordered, boolean part) {
		this.device = device;
		this.size = size;
		this.address = address;
		this.handle = handle;
		this.host = host;
		this.view = view;
		this.ordered = ordered;
		this.part = part;
	}

	static FfmMemory device(FfmDevice device, long address, long size, boolean ordered) {
		return new FfmMemory(device, size, address, address, null, null, ordered, false);
	}

	static FfmMemory host(FfmDevice device, long hostAddress, long mapped, long size) {
		Arena arena = Arena.ofShared();
		MemorySegment segment = MemorySegment.ofAddress(hostAddress).reinterpret(size, arena, null);
		ByteBuffer view = segment.asSlice(0, Math.min(size, Integer.MAX_VALUE))
			.asByteBuffer()
			.order(ByteOrder.LITTLE_ENDIAN);
		return new FfmMemory(device, size, mapped, hostAddress, new Host(arena, hostAddress), view, false, false);
	}

	/**
	 * Returns the device address {@code offset} bytes into the block.
	 * @param offset the offset
	 * @return the address
	 */
	long at(long offset) {
		return this.address + offset;
	}

	@Override
	public long deviceAddress() {
		return this.address;
	}

	@Override
	public long size() {
		return this.size;
	}

	@Override
	public boolean isHost() {
		return this.host != null;
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
		return this.handle;
	}

	@Override
	public long nativeAddress() {
		return this.address;
	}

	@Override
	public NativeMemory slice(long offset, long bytes) {
		ByteBuffer whole = this.view;
		if (this.host == null || whole == null || offset < 0 || bytes < 1 || offset > this.size - bytes
				|| offset + bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"Cannot take [" + offset + ", " + offset + " + " + bytes + ") of " + this + " as a part");
		}
		ByteBuffer partView = whole.slice((int) offset, (int) bytes).order(ByteOrder.LITTLE_ENDIAN);
		return new FfmMemory(this.device, bytes, at(offset), this.handle + offset, this.host, partView, false, true);
	}

	@Override
	public synchronized void free() {
		if (this.freed || this.part) {
			return;
		}
		this.freed = true;
		try {
			this.device.makeCurrent();
			Host hostBlock = this.host;
			if (hostBlock != null) {
				if (hostBlock.release()) {
					CuErrors.checkQuietly("cuMemFreeHost", Cu.cuMemFreeHost(hostBlock.address), this.device.ordinal());
				}
			}
			else {
				CuErrors.checkQuietly("cuMemFree", Cu.cuMemFree(this.address), this.device.ordinal());
			}
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public synchronized void free(BackendStream stream) {
		// The native handle, so that a decorated stream (a test's fault injector) is
		// freed in order too.
		if (!this.ordered || !(stream.handle() instanceof Long nativeStream)) {
			free();
			return;
		}
		if (this.freed) {
			return;
		}
		this.freed = true;
		try {
			this.device.makeCurrent();
			CuErrors.checkQuietly("cuMemFreeAsync", Cu.cuMemFreeAsync(this.address, nativeStream),
					this.device.ordinal());
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public String toString() {
		return (isHost() ? "FfmHostMemory[" : "FfmDeviceMemory[") + this.size + " bytes on device "
				+ this.device.ordinal() + "]";
	}

	/**
	 * A page-locked block and the arena its Java views live in.
	 */
	private static final class Host {

		private final Arena arena;

		final long address;

		Host(Arena arena, long address) {
			this.arena = arena;
			this.address = address;
		}

		/**
		 * Invalidates every view of the block.
		 * @return {@code true} if the block may be freed; {@code false} if a thread still
		 * reads or writes it (then it is left allocated rather than freed under it)
		 */
		boolean release() {
			try {
				this.arena.close();
				return true;
			}
			catch (IllegalStateException ex) {
				CuErrors.logReleaseFailure(new BackendException("cuMemFreeHost", "OFFLOAD_HOST_MEMORY_IN_USE",
						"a thread still accesses the page-locked block, which is left allocated: " + ex.getMessage(),
						-1, false, ex));
				return false;
			}
		}

	}

}
