package dev.offload.template;

import java.lang.reflect.Array;

import org.jspecify.annotations.Nullable;

import dev.offload.HostBuffer;

/**
 * The primitive array types that {@link Flow} and {@link KernelCall} copy to and from a
 * device, with how each is written to and read from a {@link HostBuffer}.
 */
enum ElementType {

	FLOAT("floats", Float.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putFloats(0, (float[]) array);
		}

		@Override
		Object newArray(int count) {
			return new float[count];
		}

		@Override
		void read(HostBuffer host, Object array) {
			host.getFloats(0, (float[]) array);
		}

	},

	DOUBLE("doubles", Double.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putDoubles(0, (double[]) array);
		}

		@Override
		Object newArray(int count) {
			return new double[count];
		}

		@Override
		void read(HostBuffer host, Object array) {
			host.getDoubles(0, (double[]) array);
		}

	},

	INT("ints", Integer.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putInts(0, (int[]) array);
		}

		@Override
		Object newArray(int count) {
			return new int[count];
		}

		@Override
		void read(HostBuffer host, Object array) {
			host.getInts(0, (int[]) array);
		}

	},

	LONG("longs", Long.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putLongs(0, (long[]) array);
		}

		@Override
		Object newArray(int count) {
			return new long[count];
		}

		@Override
		void read(HostBuffer host, Object array) {
			host.getLongs(0, (long[]) array);
		}

	},

	BYTE("bytes", Byte.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putBytes(0, (byte[]) array);
		}

		@Override
		Object newArray(int count) {
			return new byte[count];
		}

		@Override
		void read(HostBuffer host, Object array) {
			host.getBytes(0, (byte[]) array);
		}

	};

	private final String plural;

	private final int width;

	ElementType(String plural, int width) {
		this.plural = plural;
		this.width = width;
	}

	/**
	 * Returns the element type of a primitive array, or {@code null} for anything else.
	 */
	static @Nullable ElementType ofArray(@Nullable Object array) {
		if (array instanceof float[]) {
			return FLOAT;
		}
		if (array instanceof double[]) {
			return DOUBLE;
		}
		if (array instanceof int[]) {
			return INT;
		}
		if (array instanceof long[]) {
			return LONG;
		}
		if (array instanceof byte[]) {
			return BYTE;
		}
		return null;
	}

	/**
	 * Returns the element type's name in the plural, as the typed accessors spell it
	 * ({@code floats}).
	 */
	String plural() {
		return this.plural;
	}

	/**
	 * Returns the bytes {@code count} elements take in a buffer: at least one, because a
	 * buffer holds at least one byte even for an empty array.
	 */
	long bufferBytes(int count) {
		if (count < 0) {
			throw new IllegalArgumentException("count must be at least 0, was " + count);
		}
		return Math.max(1, (long) count * this.width);
	}

	/**
	 * Returns the bytes {@code count} elements hold.
	 */
	long bytes(int count) {
		return (long) count * this.width;
	}

	/**
	 * Returns the number of elements of {@code array}, an array of this type.
	 */
	int length(Object array) {
		return Array.getLength(array);
	}

	abstract void write(HostBuffer host, Object array);

	/**
	 * Returns a new array of {@code count} elements of this type.
	 */
	abstract Object newArray(int count);

	/**
	 * Fills an array of this type from the start of {@code host}.
	 */
	abstract void read(HostBuffer host, Object array);

}
