package dev.offload.backend.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Objects;

import dev.offload.kernel.HostThread;
import dev.offload.spi.NativeMemory;

/**
 * The {@link HostThread} of a host launch: one instance serves one chunk of a grid's
 * blocks on one worker, its indices updated from thread to thread; it is never shared
 * between workers, so its buffer views need no locking.
 */
final class GridThread implements HostThread {

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

	GridThread(Object[] args, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ) {
		this.args = args;
		this.views = new Object[args.length];
		this.gridDimX = gridX;
		this.gridDimY = gridY;
		this.gridDimZ = gridZ;
		this.blockDimX = blockX;
		this.blockDimY = blockY;
		this.blockDimZ = blockZ;
	}

	/**
	 * @return {@code threadIdx.x}
	 */
	@Override
	public int threadIdxX() {
		return this.threadIdxX;
	}

	/**
	 * @return {@code threadIdx.y}
	 */
	@Override
	public int threadIdxY() {
		return this.threadIdxY;
	}

	/**
	 * @return {@code threadIdx.z}
	 */
	@Override
	public int threadIdxZ() {
		return this.threadIdxZ;
	}

	/**
	 * @return {@code blockIdx.x}
	 */
	@Override
	public int blockIdxX() {
		return this.blockIdxX;
	}

	/**
	 * @return {@code blockIdx.y}
	 */
	@Override
	public int blockIdxY() {
		return this.blockIdxY;
	}

	/**
	 * @return {@code blockIdx.z}
	 */
	@Override
	public int blockIdxZ() {
		return this.blockIdxZ;
	}

	/**
	 * @return {@code blockDim.x}
	 */
	@Override
	public int blockDimX() {
		return this.blockDimX;
	}

	/**
	 * @return {@code blockDim.y}
	 */
	@Override
	public int blockDimY() {
		return this.blockDimY;
	}

	/**
	 * @return {@code blockDim.z}
	 */
	@Override
	public int blockDimZ() {
		return this.blockDimZ;
	}

	/**
	 * @return {@code gridDim.x}
	 */
	@Override
	public int gridDimX() {
		return this.gridDimX;
	}

	/**
	 * @return {@code gridDim.y}
	 */
	@Override
	public int gridDimY() {
		return this.gridDimY;
	}

	/**
	 * @return {@code gridDim.z}
	 */
	@Override
	public int gridDimZ() {
		return this.gridDimZ;
	}

	/**
	 * Returns {@code blockIdx.x * blockDim.x + threadIdx.x}.
	 * @return the global x index
	 */
	@Override
	public int globalIdX() {
		return this.blockIdxX * this.blockDimX + this.threadIdxX;
	}

	/**
	 * Returns an {@code int} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	@Override
	public int intArg(int index) {
		return (Integer) this.args[index];
	}

	/**
	 * Returns a {@code long} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	@Override
	public long longArg(int index) {
		return (Long) this.args[index];
	}

	/**
	 * Returns a {@code float} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	@Override
	public float floatArg(int index) {
		return (Float) this.args[index];
	}

	/**
	 * Returns a {@code double} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	@Override
	public double doubleArg(int index) {
		return (Double) this.args[index];
	}

	/**
	 * Returns a buffer argument as bytes (little-endian, the whole allocation).
	 * @param index the parameter's index
	 * @return the view, shared by this chunk's threads
	 */
	@Override
	public ByteBuffer bytes(int index) {
		return view(index, ByteBuffer.class);
	}

	/**
	 * Returns a buffer argument as floats.
	 * @param index the parameter's index
	 * @return the view, shared by this chunk's threads
	 */
	@Override
	public FloatBuffer floats(int index) {
		return view(index, FloatBuffer.class);
	}

	/**
	 * Returns a buffer argument as doubles.
	 * @param index the parameter's index
	 * @return the view, shared by this chunk's threads
	 */
	@Override
	public DoubleBuffer doubles(int index) {
		return view(index, DoubleBuffer.class);
	}

	/**
	 * Returns a buffer argument as ints.
	 * @param index the parameter's index
	 * @return the view, shared by this chunk's threads
	 */
	@Override
	public IntBuffer ints(int index) {
		return view(index, IntBuffer.class);
	}

	/**
	 * Returns a buffer argument as longs.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	@Override
	public LongBuffer longs(int index) {
		return view(index, LongBuffer.class);
	}

	private <T> T view(int index, Class<T> type) {
		Object view = this.views[index];
		if (!type.isInstance(view)) {
			if (!(this.args[index] instanceof NativeMemory memory)) {
				throw new IllegalArgumentException(
						"Argument " + index + " is not a buffer but " + this.args[index].getClass().getSimpleName());
			}
			ByteBuffer bytes = Objects.requireNonNull(memory.hostView()).order(ByteOrder.LITTLE_ENDIAN);
			if (type == ByteBuffer.class) {
				view = bytes;
			}
			else if (type == FloatBuffer.class) {
				view = bytes.asFloatBuffer();
			}
			else if (type == DoubleBuffer.class) {
				view = bytes.asDoubleBuffer();
			}
			else if (type == LongBuffer.class) {
				view = bytes.asLongBuffer();
			}
			else {
				view = bytes.asIntBuffer();
			}
			this.views[index] = view;
		}
		return type.cast(view);
	}

}
