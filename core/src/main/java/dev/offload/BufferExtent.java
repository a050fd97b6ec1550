package dev.offload;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.NativeMemory;

/**
 * A device buffer's memory as an emulated device's kernel sees it: its own bytes, not the
 * whole block of its size class that the buffer cache handed out. An emulation runs a
 * kernel's reads and writes in Java, so one past the buffer's end is an
 * {@link IndexOutOfBoundsException} there, which the emulation reports as an illegal
 * address, where it would otherwise read a stale neighbour's bytes silently. On a GPU the
 * memory has no view from Java and is passed unchanged.
 */
final class BufferExtent implements NativeMemory {

	private final NativeMemory memory;

	private final long bytes;

	private BufferExtent(NativeMemory memory, long bytes) {
		this.memory = memory;
		this.bytes = bytes;
	}

	/**
	 * Returns the memory a kernel gets for a buffer of {@code bytes}.
	 * @param memory the buffer's memory (a block of its size class)
	 * @param bytes the buffer's size
	 * @return {@code memory}, or its first {@code bytes} where the kernel runs on the
	 * host
	 */
	static NativeMemory of(NativeMemory memory, long bytes) {
		if (memory.isHost() || bytes >= memory.size() || bytes > Integer.MAX_VALUE || memory.hostView() == null) {
			return memory;
		}
		return new BufferExtent(memory, bytes);
	}

	@Override
	public long size() {
		return this.bytes;
	}

	@Override
	public boolean isHost() {
		return false;
	}

	@Override
	public @Nullable ByteBuffer hostView() {
		ByteBuffer view = this.memory.hostView();
		return (view != null) ? view.slice(0, (int) this.bytes).order(ByteOrder.LITTLE_ENDIAN) : null;
	}

	@Override
	public Object handle() {
		return this.memory.handle();
	}

	@Override
	public long nativeAddress() {
		return this.memory.nativeAddress();
	}

	@Override
	public void free() {
		throw new UnsupportedOperationException("A kernel argument's extent is not freed; its buffer is");
	}

	@Override
	public String toString() {
		return "first " + this.bytes + " bytes of " + this.memory;
	}

}
