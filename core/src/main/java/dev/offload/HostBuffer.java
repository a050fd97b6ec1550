package dev.offload;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.NativeMemory;

/**
 * Page-locked host memory that copies to and from the device can use asynchronously, with
 * typed accessors. Read results only after the session's work is done
 * ({@link OffloadSession#synchronize()}, or the completion of
 * {@link OffloadSession#closeAsync()}). See {@link Buffer} for who owns it and when it is
 * given back.
 */
public final class HostBuffer extends Buffer {

	/**
	 * Arrays up to this length are read and written element by element rather than
	 * through a typed view, which would be a new object each time.
	 */
	private static final int FEW = 16;

	/**
	 * The block's own view, shared with every buffer the block serves over time: read and
	 * written at absolute indexes only, each access checked against this buffer's size.
	 */
	private final ByteBuffer view;

	HostBuffer(Device device, NativeMemory memory, long size, @Nullable OffloadSession owner) {
		super(device, memory, size, owner);
		this.view = Objects.requireNonNull(memory.sharedHostView(), "page-locked memory has a host view");
	}

	/**
	 * Returns a little-endian view of the buffer.
	 * @return a new view with position 0 and limit {@link #size()}
	 * @throws IllegalStateException if the buffer is closed
	 */
	public ByteBuffer asByteBuffer() {
		checkOpen("asByteBuffer");
		return this.view.slice(0, (int) size()).order(ByteOrder.LITTLE_ENDIAN);
	}

	/**
	 * Writes floats starting at float index {@code index}.
	 * @param index the first float's index
	 * @param values the values
	 * @return this buffer
	 */
	public HostBuffer putFloats(int index, float[] values) {
		checkElements(index, values.length, Float.BYTES, "putFloats");
		if (values.length <= FEW) {
			for (int i = 0; i < values.length; i++) {
				this.view.putFloat((index + i) * Float.BYTES, values[i]);
			}
		}
		else {
			this.view.asFloatBuffer().put(index, values);
		}
		return this;
	}

	/**
	 * Reads floats starting at float index {@code index}.
	 * @param index the first float's index
	 * @param into the array to fill
	 * @return {@code into}
	 */
	public float[] getFloats(int index, float[] into) {
		checkElements(index, into.length, Float.BYTES, "getFloats");
		if (into.length <= FEW) {
			for (int i = 0; i < into.length; i++) {
				into[i] = this.view.getFloat((index + i) * Float.BYTES);
			}
		}
		else {
			this.view.asFloatBuffer().get(index, into);
		}
		return into;
	}

	/**
	 * Writes doubles starting at double index {@code index}.
	 * @param index the first double's index
	 * @param values the values
	 * @return this buffer
	 */
	public HostBuffer putDoubles(int index, double[] values) {
		checkElements(index, values.length, Double.BYTES, "putDoubles");
		if (values.length <= FEW) {
			for (int i = 0; i < values.length; i++) {
				this.view.putDouble((index + i) * Double.BYTES, values[i]);
			}
		}
		else {
			this.view.asDoubleBuffer().put(index, values);
		}
		return this;
	}

	/**
	 * Reads doubles starting at double index {@code index}.
	 * @param index the first double's index
	 * @param into the array to fill
	 * @return {@code into}
	 */
	public double[] getDoubles(int index, double[] into) {
		checkElements(index, into.length, Double.BYTES, "getDoubles");
		if (into.length <= FEW) {
			for (int i = 0; i < into.length; i++) {
				into[i] = this.view.getDouble((index + i) * Double.BYTES);
			}
		}
		else {
			this.view.asDoubleBuffer().get(index, into);
		}
		return into;
	}

	/**
	 * Writes ints starting at int index {@code index}.
	 * @param index the first int's index
	 * @param values the values
	 * @return this buffer
	 */
	public HostBuffer putInts(int index, int[] values) {
		checkElements(index, values.length, Integer.BYTES, "putInts");
		if (values.length <= FEW) {
			for (int i = 0; i < values.length; i++) {
				this.view.putInt((index + i) * Integer.BYTES, values[i]);
			}
		}
		else {
			this.view.asIntBuffer().put(index, values);
		}
		return this;
	}

	/**
	 * Reads ints starting at int index {@code index}.
	 * @param index the first int's index
	 * @param into the array to fill
	 * @return {@code into}
	 */
	public int[] getInts(int index, int[] into) {
		checkElements(index, into.length, Integer.BYTES, "getInts");
		if (into.length <= FEW) {
			for (int i = 0; i < into.length; i++) {
				into[i] = this.view.getInt((index + i) * Integer.BYTES);
			}
		}
		else {
			this.view.asIntBuffer().get(index, into);
		}
		return into;
	}

	/**
	 * Writes longs starting at long index {@code index}.
	 * @param index the first long's index
	 * @param values the values
	 * @return this buffer
	 */
	public HostBuffer putLongs(int index, long[] values) {
		checkElements(index, values.length, Long.BYTES, "putLongs");
		if (values.length <= FEW) {
			for (int i = 0; i < values.length; i++) {
				this.view.putLong((index + i) * Long.BYTES, values[i]);
			}
		}
		else {
			this.view.asLongBuffer().put(index, values);
		}
		return this;
	}

	/**
	 * Reads longs starting at long index {@code index}.
	 * @param index the first long's index
	 * @param into the array to fill
	 * @return {@code into}
	 */
	public long[] getLongs(int index, long[] into) {
		checkElements(index, into.length, Long.BYTES, "getLongs");
		if (into.length <= FEW) {
			for (int i = 0; i < into.length; i++) {
				into[i] = this.view.getLong((index + i) * Long.BYTES);
			}
		}
		else {
			this.view.asLongBuffer().get(index, into);
		}
		return into;
	}

	/**
	 * Writes bytes starting at byte {@code index}.
	 * @param index the first byte's index
	 * @param values the values
	 * @return this buffer
	 */
	public HostBuffer putBytes(int index, byte[] values) {
		checkElements(index, values.length, Byte.BYTES, "putBytes");
		this.view.put(index, values);
		return this;
	}

	/**
	 * Reads bytes starting at byte {@code index}.
	 * @param index the first byte's index
	 * @param into the array to fill
	 * @return {@code into}
	 */
	public byte[] getBytes(int index, byte[] into) {
		checkElements(index, into.length, Byte.BYTES, "getBytes");
		this.view.get(index, into);
		return into;
	}

	private void checkElements(int index, int count, int width, String use) {
		checkOpen(use);
		if (index < 0) {
			throw new IllegalArgumentException("index must be at least 0, was " + index);
		}
		checkRange((long) index * width, (long) count * width, use);
	}

}
