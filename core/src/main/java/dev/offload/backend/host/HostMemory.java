package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * Emulated device memory, or host memory, as a direct buffer, or a part of a host block.
 * Emulated device memory counts against its device's emulated total until freed.
 */
final class HostMemory implements NativeMemory {

	private final ByteBuffer buffer;

	/**
	 * The view {@link #sharedHostView()} hands out, apart from the buffer that
	 * {@link #handle()} gives to code that may move its position.
	 */
	private final ByteBuffer view;

	private final boolean host;

	/** The device's allocated bytes, for device memory; {@code null} otherwise. */
	private final @Nullable AtomicLong accounted;

	/** What freed page-locked memory reads as. */
	static final byte POISON = (byte) 0xFF;

	private static final int POISON_CHUNK_BYTES = 8192;

	private final AtomicLong freed = new AtomicLong();

	HostMemory(int bytes, boolean host, @Nullable AtomicLong accounted) {
		this(ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN), host, accounted);
	}

	private HostMemory(ByteBuffer buffer, boolean host, @Nullable AtomicLong accounted) {
		this.buffer = buffer;
		this.view = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
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
	public ByteBuffer sharedHostView() {
		return this.view;
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
		if (!this.freed.compareAndSet(0, 1)) {
			return;
		}
		if (this.accounted != null) {
			this.accounted.addAndGet(-size());
		}
		if (this.host) {
			poison();
		}
	}

	/**
	 * Overwrites freed page-locked memory with {@code 0xFF} bytes (NaN as a float, -1 as
	 * an int): on CUDA, reading page-locked memory after its free crashes the JVM; here
	 * it reads values no kernel wrote, so that tests see a read after free.
	 */
	private void poison() {
		ByteBuffer view = this.buffer.duplicate();
		view.clear();
		byte[] pattern = new byte[Math.min(view.remaining(), POISON_CHUNK_BYTES)];
		Arrays.fill(pattern, POISON);
		while (view.hasRemaining()) {
			view.put(pattern, 0, Math.min(pattern.length, view.remaining()));
		}
	}

	@Override
	public void free(BackendStream stream) {
		if (stream.handle() instanceof HostStream hostStream) {
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
