package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * Emulated device memory, or host memory, as a direct buffer, or a part of a host block.
 * Emulated device memory counts against its device's emulated total until freed.
 */
final class HostMemory implements NativeMemory {

	private final ByteBuffer buffer;

	private final boolean host;

	/** The device's allocated bytes, for device memory; {@code null} otherwise. */
	private final AtomicLong accounted;

	private final AtomicLong freed = new AtomicLong();

	HostMemory(int bytes, boolean host, AtomicLong accounted) {
		this(ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN), host, accounted);
	}

	private HostMemory(ByteBuffer buffer, boolean host, AtomicLong accounted) {
		this.buffer = buffer;
		this.host = host;
		this.accounted = accounted;
	}

	@Override
	public long size() {
		return this.buffer.capacity();
	}

	@Override
	public boolean isHost() {
		return this.host;
	}

	@Override
	public ByteBuffer hostView() {
		return this.buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
	}

	@Override
	public Object handle() {
		return this.buffer;
	}

	@Override
	public NativeMemory slice(long offset, long bytes) {
		if (!this.host || offset < 0 || bytes < 1 || offset > size() - bytes) {
			throw new IllegalArgumentException(
					"Cannot take [" + offset + ", " + offset + " + " + bytes + ") of " + this + " as a part");
		}
		return new HostMemory(this.buffer.slice((int) offset, (int) bytes).order(ByteOrder.LITTLE_ENDIAN), true, null);
	}

	@Override
	public void free() {
		// The garbage collector frees a direct buffer once nothing refers to it; the
		// emulated device gets its bytes back once.
		if (this.accounted != null && this.freed.compareAndSet(0, 1)) {
			this.accounted.addAndGet(-size());
		}
	}

	@Override
	public void free(BackendStream stream) {
		if (stream instanceof HostStream hostStream) {
			hostStream.enqueueFree(this::free);
		}
		else {
			free();
		}
	}

	@Override
	public String toString() {
		return (this.host ? "HostMemory[" : "EmulatedDeviceMemory[") + size() + " bytes]";
	}

}
