package dev.offload.template;

import java.util.Arrays;
import java.util.Objects;

import dev.offload.Device;
import dev.offload.HostBuffer;

/**
 * The outputs of a {@link KernelCall}, read back as the arrays its {@code out} calls
 * declared, in their order: {@code result.floats(0)} is the first output if it was
 * declared with {@code outFloats}.
 */
public final class KernelResult {

	private final Device device;

	/** One array per output, its element type the output's. */
	private final Object[] arrays;

	/**
	 * Creates a result of the call's outputs, which it keeps without copying: the caller
	 * hands them over.
	 */
	KernelResult(Device device, Object[] arrays) {
		this.device = device;
		this.arrays = arrays;
	}

	/**
	 * Fills an output's array from the start of its page-locked buffer.
	 */
	void read(int output, HostBuffer from) {
		Object array = this.arrays[output];
		type(array).read(from, array);
	}

	private static ElementType type(Object array) {
		return Objects.requireNonNull(ElementType.ofArray(array), "an output is a primitive array");
	}

	/**
	 * Returns the device the kernel ran on.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Returns the number of outputs.
	 * @return the number of {@code out} calls
	 */
	public int size() {
		return this.arrays.length;
	}

	/**
	 * Returns an output declared with {@link KernelCall#outFloats(int)}.
	 * @param output the output's index among the outputs, from 0
	 * @return the floats
	 * @throws IllegalArgumentException if there is no such output or it holds another
	 * type
	 */
	public float[] floats(int output) {
		return (float[]) get(output, ElementType.FLOAT);
	}

	/**
	 * Returns an output declared with {@link KernelCall#outDoubles(int)}.
	 * @param output the output's index among the outputs, from 0
	 * @return the doubles
	 * @throws IllegalArgumentException if there is no such output or it holds another
	 * type
	 */
	public double[] doubles(int output) {
		return (double[]) get(output, ElementType.DOUBLE);
	}

	/**
	 * Returns an output declared with {@link KernelCall#outInts(int)}.
	 * @param output the output's index among the outputs, from 0
	 * @return the ints
	 * @throws IllegalArgumentException if there is no such output or it holds another
	 * type
	 */
	public int[] ints(int output) {
		return (int[]) get(output, ElementType.INT);
	}

	/**
	 * Returns an output declared with {@link KernelCall#outLongs(int)}.
	 * @param output the output's index among the outputs, from 0
	 * @return the longs
	 * @throws IllegalArgumentException if there is no such output or it holds another
	 * type
	 */
	public long[] longs(int output) {
		return (long[]) get(output, ElementType.LONG);
	}

	/**
	 * Returns an output declared with {@link KernelCall#outBytes(int)}.
	 * @param output the output's index among the outputs, from 0
	 * @return the bytes
	 * @throws IllegalArgumentException if there is no such output or it holds another
	 * type
	 */
	public byte[] bytes(int output) {
		return (byte[]) get(output, ElementType.BYTE);
	}

	private Object get(int output, ElementType type) {
		if (output < 0 || output >= this.arrays.length) {
			throw new IllegalArgumentException(
					"Output " + output + " does not exist: the call declared " + this.arrays.length + " outputs");
		}
		ElementType declared = type(this.arrays[output]);
		if (declared != type) {
			throw new IllegalArgumentException("Output " + output + " holds " + declared.plural() + ", not "
					+ type.plural() + ": read it with " + declared.plural() + "(" + output + ")");
		}
		return this.arrays[output];
	}

	@Override
	public String toString() {
		return "KernelResult[device " + this.device.id() + ", outputs "
				+ Arrays.stream(this.arrays).map((array) -> type(array).plural()).toList() + "]";
	}

}
