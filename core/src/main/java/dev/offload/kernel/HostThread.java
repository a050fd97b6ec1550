package dev.offload.kernel;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.ForkJoinPool;

/**
 * One emulated thread of a {@link HostKernel} launch: CUDA's {@code threadIdx},
 * {@code blockIdx}, {@code blockDim} and {@code gridDim}, and typed access to the
 * launch's arguments (buffers as little-endian views shared by the launch's threads). The
 * host backend may reuse one instance for many threads of a launch: do not keep it.
 */
public interface HostThread {

	/**
	 * @return {@code threadIdx.x}
	 */
	int threadIdxX();

	/**
	 * @return {@code threadIdx.y}
	 */
	int threadIdxY();

	/**
	 * @return {@code threadIdx.z}
	 */
	int threadIdxZ();

	/**
	 * @return {@code blockIdx.x}
	 */
	int blockIdxX();

	/**
	 * @return {@code blockIdx.y}
	 */
	int blockIdxY();

	/**
	 * @return {@code blockIdx.z}
	 */
	int blockIdxZ();

	/**
	 * @return {@code blockDim.x}
	 */
	int blockDimX();

	/**
	 * @return {@code blockDim.y}
	 */
	int blockDimY();

	/**
	 * @return {@code blockDim.z}
	 */
	int blockDimZ();

	/**
	 * @return {@code gridDim.x}
	 */
	int gridDimX();

	/**
	 * @return {@code gridDim.y}
	 */
	int gridDimY();

	/**
	 * @return {@code gridDim.z}
	 */
	int gridDimZ();

	/**
	 * Returns {@code blockIdx.x * blockDim.x + threadIdx.x}.
	 * @return the global x index
	 */
	int globalIdX();

	/**
	 * Returns an {@code int} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	int intArg(int index);

	/**
	 * Returns a {@code long} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	long longArg(int index);

	/**
	 * Returns a {@code float} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	float floatArg(int index);

	/**
	 * Returns a {@code double} argument.
	 * @param index the parameter's index
	 * @return the value
	 */
	double doubleArg(int index);

	/**
	 * Returns a buffer argument as bytes (little-endian, the whole allocation).
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	ByteBuffer bytes(int index);

	/**
	 * Returns a buffer argument as floats.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	FloatBuffer floats(int index);

	/**
	 * Returns a buffer argument as doubles.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	DoubleBuffer doubles(int index);

	/**
	 * Returns a buffer argument as ints.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	IntBuffer ints(int index);

	/**
	 * Returns a buffer argument as longs.
	 * @param index the parameter's index
	 * @return the view, shared by the launch's threads
	 */
	LongBuffer longs(int index);

	/**
	 * Blocks this thread until {@code blocker} is done, as a kernel that spins on a flag
	 * would on a GPU, without taking the device from other streams: the host backend
	 * lends the device another worker for as long as the wait lasts (the compensation of
	 * {@link ForkJoinPool#managedBlock}), so other streams' kernels keep running, as a
	 * GPU runs other blocks beside a spinning one. Outside a host launch it is
	 * {@link ForkJoinPool#managedBlock}.
	 * @param blocker the wait
	 * @throws InterruptedException if the thread is interrupted while it waits
	 */
	default void managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
		ForkJoinPool.managedBlock(blocker);
	}

}
