package dev.offload.template;

import java.lang.reflect.Array;

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
		Object read(HostBuffer host, int count) {
			return host.getFloats(0, new float[count]);
		}

	},

	DOUBLE("doubles", Double.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putDoubles(0, (double[]) array);
		}

		@Override
		Object read(HostBuffer host, int count) {
			return host.getDoubles(0, new double[count]);
		}

	},

	INT("ints", Integer.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putInts(0, (int[]) array);
		}

		@Override
		Object read(HostBuffer host, int count) {
			return host.getInts(0, new int[count]);
		}

	},

	LONG("longs", Long.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putLongs(0, (long[]) array);
		}

		@Override
		Object read(HostBuffer host, int count) {
			return host.getLongs(0, new long[count]);
		}

	},

	BYTE("bytes", Byte.BYTES) {

		@Override
		void write(HostBuffer host, Object array) {
			host.putBytes(0, (byte[]) array);
		}

		@Override
		Object read(HostBuffer host, int count) {
			return host.getBytes(0, new byte[count]);
		}

	};

	private final String plural;

	private final int width;

	ElementType(String plural, int width) {
		this.plural = plural;
		this.width = width;
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

	abstract Object read(HostBuffer host, int count);

}
