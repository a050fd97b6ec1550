package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import dev.offload.spi.NativeMemory;

/**
 * Emulated device memory, or host memory, as a direct buffer.
 */
final class HostMemory implements NativeMemory {

	private final ByteBuffer buffer;

	private final boolean host;

	HostMemory(int bytes, boolean host) {
		this.buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
		this.host = host;
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
	public void free() {
		// The garbage collector frees a direct buffer once nothing refers to it.
	}

}
