package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;

import dev.offload.spi.NativeMemory;

/**
 * One emulated thread of a {@link HostKernel} launch: CUDA's {@code threadIdx}, {@code blockIdx}, {@code blockDim}
 * and {@code gridDim}, and typed access to the launch's arguments. One instance serves a whole launch, updated from
 * thread to thread: do not keep it.
 */
public final class HostThread {

	private final Object[] args;

	private final Object[] views;

	private final int blockDimX;

	private final int blockDimY;

	private final int blockDimZ;

	private final int gridDimX;

	private final int gridDimY;

	private final int gridDimZ;

	int threadIdxX;

	int threadIdxY;

	int threadIdxZ;

	int blockIdxX;

	int blockIdxY;

	int blockIdxZ;

	HostThread(Object[] args, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ) {
		this.args = args;
		this.views = new Object[args.length];
		this.gridDimX = gridX;
		this.gridDimY = gridY;
		this.gridDimZ = gridZ;
		this.blockDimX = blockX;
		this.blockDimY = blockY;
		this.blockDimZ = blockZ;
	}

	/** @return {@code threadIdx.x} */
	public int threadIdxX() {
		return this.threadIdxX;
	}

	/** @return {@code threadIdx.y} */
	public int threadIdxY() {
		return this.threadIdxY;
	}

	/** @return {@code threadIdx.z} */
	public int threadIdxZ() {
		return this.threadIdxZ;
	}

	/** @return {@code blockIdx.x} */
	public int blockIdxX() {
		return this.blockIdxX;
	}

	/** @return {@code blockIdx.y} */
	public int blockIdxY() {
		return this.blockIdxY;
	}

	/** @return {@code blockIdx.z} */
	public int blockIdxZ() {
		return this.blockIdxZ;
	}

	/** @return {@code blockDim.x} */
	public int blockDimX() {
		return this.blockDimX;
	}

	/** @return {@code blockDim.y} */
	public int blockDimY() {
		return this.blockDimY;
	}

	/** @return {@code blockDim.z} */
	public int blockDimZ() {
		return this.blockDimZ;
	}

	/** @return {@code gridDim.x} */
	public int gridDimX() {
		return this.gridDimX;
	}

	/** @return {@code gridDim.y} */
	public int gridDimY() {
		return this.gridDimY;
	}

	/** @return {@code gridDim.z} */
	public int gridDimZ() {
		return this.gridDimZ;
	}

	/**
	 * Returns {@code blockIdx.x * blockDim.x + threadIdx.x}.
	 * @return the global x index
	 */
	public int globalIdX() {
		return this.blockIdxX * this.blockDimX + this.threadIdxX;
	}

	/**
	 * Returns an {@code int} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	public int intArg(int index) {
		return (Integer) this.args[index];
	}

	/**
	 * Returns a {@code long} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	public long longArg(int index) {
		return (Long) this.args[index];
	}

	/**
	 * Returns a {@code float} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	public float floatArg(int index) {
		return (Float) this.args[index];
	}

	/**
	 * Returns a {@code double} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	public double doubleArg(int index) {
		return (Double) this.args[index];
	}

	/**
	 * Returns a buffer argument as bytes (little-endian, the whole allocation).
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	public ByteBuffer bytes(int index) {
		return view(index, ByteBuffer.class);
	}

	/**
	 * Returns a buffer argument as floats.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	public FloatBuffer floats(int index) {
		return view(index, FloatBuffer.class);
	}

	/**
	 * Returns a buffer argument as doubles.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	public DoubleBuffer doubles(int index) {
		return view(index, DoubleBuffer.class);
	}

	/**
	 * Returns a buffer argument as ints.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	public IntBuffer ints(int index) {
		return view(index, IntBuffer.class);
	}

	private <T> T view(int index, Class<T> type) {
		Object view = this.views[index];
		if (!type.isInstance(view)) {
			if (!(this.args[index] instanceof NativeMemory memory)) {
				throw new IllegalArgumentException("Argument " + index + " is not a buffer but "
						+ this.args[index].getClass().getSimpleName());
			}
			ByteBuffer bytes = memory.hostView().order(ByteOrder.LITTLE_ENDIAN);
			if (type == ByteBuffer.class) {
				view = bytes;
			}
			else if (type == FloatBuffer.class) {
				view = bytes.asFloatBuffer();
			}
			else if (type == DoubleBuffer.class) {
				view = bytes.asDoubleBuffer();
			}
			else {
				view = bytes.asIntBuffer();
			}
			this.views[index] = view;
		}
		return type.cast(view);
	}

}
