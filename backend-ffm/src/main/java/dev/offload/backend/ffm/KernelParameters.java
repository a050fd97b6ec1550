package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The native storage of one stream's kernel arguments, reused by every launch: the
 * {@code void*} array {@code cuLaunchKernel} takes, followed by one 8-byte slot per
 * argument that its entry points at. The driver copies the arguments during the call, so
 * the next launch may overwrite them; the storage grows (never shrinks) when a kernel has
 * more parameters than any before, and is freed with the stream. It sits in
 * {@linkplain CacheLines blocks of its own}, as every launch writes it.
 * <p>
 * A stream is used by one session at a time, so one launch packs at a time; the arena is
 * shared because successive sessions run on different threads.
 */
final class KernelParameters {

	/** Each slot's size: every argument is at most 8 bytes. */
	static final long SLOT = 8;

	private static final int INITIAL_CAPACITY = 8;

	private final Arena arena;

	private MemorySegment storage;

	private int capacity;

	/**
	 * Creates the storage.
	 * @param arena where its memory lives; closing the arena frees it
	 */
	KernelParameters(Arena arena) {
		this.arena = arena;
		this.storage = allocate(arena, INITIAL_CAPACITY);
		this.capacity = INITIAL_CAPACITY;
	}

	private static MemorySegment allocate(Arena arena, int capacity) {
		return CacheLines.allocate(arena, 2 * SLOT * capacity);
	}

	/**
	 * Writes the arguments and returns the address of the pointer array.
	 * @param args {@link Integer}, {@link Long}, {@link Float}, {@link Double} or
	 * {@link DeviceAddress} arguments, already checked against the kernel
	 * @return the {@code void**} to pass as {@code kernelParams}, or 0 for no arguments
	 * @throws IllegalArgumentException for an argument of another type
	 */
	long pack(Object[] args) {
		int count = args.length;
		if (count == 0) {
			return 0;
		}
		if (count > this.capacity) {
			int grown = Math.max(count, 2 * this.capacity);
			this.storage = allocate(this.arena, grown);
			this.capacity = grown;
		}
		MemorySegment segment = this.storage;
		long base = segment.address();
		long slots = SLOT * this.capacity;
		for (int i = 0; i < count; i++) {
			long slot = slots + SLOT * i;
			Object arg = args[i];
			if (arg instanceof Integer value) {
				segment.set(ValueLayout.JAVA_INT, slot, value);
			}
			else if (arg instanceof Long value) {
				segment.set(ValueLayout.JAVA_LONG, slot, value);
			}
			else if (arg instanceof Float value) {
				segment.set(ValueLayout.JAVA_FLOAT, slot, value);
			}
			else if (arg instanceof Double value) {
				segment.set(ValueLayout.JAVA_DOUBLE, slot, value);
			}
			else if (arg instanceof DeviceAddress memory) {
				segment.set(ValueLayout.JAVA_LONG, slot, memory.deviceAddress());
			}
			else {
				throw new IllegalArgumentException("Argument " + i + " cannot be passed to a CUDA kernel: "
						+ ((arg != null) ? arg.getClass().getName() : "null"));
			}
			segment.set(ValueLayout.JAVA_LONG, SLOT * i, base + slot);
		}
		return base;
	}

	/**
	 * Returns how many arguments fit without growing.
	 * @return the capacity
	 */
	int capacity() {
		return this.capacity;
	}

	/**
	 * Memory that a kernel receives as a device pointer.
	 */
	interface DeviceAddress {

		/**
		 * Returns the device address a kernel receives.
		 * @return the address
		 */
		long deviceAddress();

	}

}
