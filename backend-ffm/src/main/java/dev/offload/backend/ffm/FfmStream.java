package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.internal.blas.CublasBinding;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendGraph;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A {@code CU_STREAM_NON_BLOCKING} stream with the native memory its calls need: the
 * reusable {@link KernelParameters} and an 8-byte slot for out-parameters (the address of
 * a stream-ordered allocation, a captured graph), both freed after the stream is
 * destroyed. Launches, copies, records and queries allocate nothing.
 * <p>
 * Its {@link #handle()} is the stream's address as a {@link Long}; {@link #handle(Class)}
 * also gives a {@code jcuda.driver.CUstream} where JCuda is on the class path.
 */
final class FfmStream implements BackendStream {

	/** {@code CU_STREAM_CAPTURE_MODE_THREAD_LOCAL}. */
	static final int CAPTURE_MODE_THREAD_LOCAL = 1;

	private final FfmDevice device;

	private final long stream;

	private final Long handle;

	private final int deviceId;

	private final Arena arena = Arena.ofShared();

	private final KernelParameters parameters = new KernelParameters(this.arena);

	private final MemorySegment scratch = this.arena.allocate(ValueLayout.JAVA_LONG);

	private volatile @Nullable Object jcudaStream;

	private boolean destroyed;

	FfmStream(FfmDevice device, long stream) {
		this.device = device;
		this.stream = stream;
		this.handle = stream;
		this.deviceId = device.ordinal();
	}

	long address() {
		return this.stream;
	}

	FfmDevice device() {
		return this.device;
	}

	@Override
	public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
		this.device.makeCurrent();
		// Unified addressing: host memory is mapped, so one call covers every direction.
		CuErrors.check("cuMemcpyAsync",
				Cu.cuMemcpyAsync(((FfmMemory) dst).at(dstOffset), ((FfmMemory) src).at(srcOffset), bytes, this.stream),
				this.deviceId);
	}

	@Override
	public void fill(NativeMemory dst, long offset, long bytes, byte value) {
		this.device.makeCurrent();
		CuErrors.check("cuMemsetD8Async", Cu.cuMemsetD8Async(((FfmMemory) dst).at(offset), value, bytes, this.stream),
				this.deviceId);
	}

	@Override
	public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, Object[] args) {
		FfmModule.FfmKernel ffmKernel = (FfmModule.FfmKernel) kernel;
		long packed = this.parameters.pack(args);
		this.device.makeCurrent();
		int result = Cu.cuLaunchKernel(ffmKernel.function(), gridX, gridY, gridZ, blockX, blockY, blockZ,
				sharedMemoryBytes, this.stream, packed, 0);
		if (result != CuErrors.CUDA_SUCCESS) {
			throw CuErrors
				.error("cuLaunchKernel(" + kernel.name() + ", grid " + gridX + "x" + gridY + "x" + gridZ + ", block "
						+ blockX + "x" + blockY + "x" + blockZ + ", " + sharedMemoryBytes + " bytes of shared memory)",
						result, this.deviceId);
		}
	}

	/**
	 * Allocates device memory in this stream's order; the address comes back through the
	 * stream's scratch slot. The device's context is current.
	 */
	long allocateOrdered(long bytes) {
		CuErrors.check("cuMemAllocAsync(" + bytes + " bytes)",
				Cu.cuMemAllocAsync(this.scratch.address(), bytes, this.stream), this.deviceId);
		return this.scratch.get(ValueLayout.JAVA_LONG, 0);
	}

	/**
	 * Captures in thread-local mode, as the JCuda binding does; the graph is instantiated
	 * at once and its template destroyed.
	 */
	@Override
	public BackendGraph capture(Consumer<BackendStream> steps) {
		this.device.makeCurrent();
		CuErrors.check("cuStreamBeginCapture", Cu.cuStreamBeginCapture(this.stream, CAPTURE_MODE_THREAD_LOCAL),
				this.deviceId);
		try {
			steps.accept(this);
		}
		catch (RuntimeException | Error ex) {
			// Leaves capture mode; the partial graph is of no use.
			if (Cu.cuStreamEndCapture(this.stream, this.scratch.address()) == CuErrors.CUDA_SUCCESS) {
				long partial = this.scratch.get(ValueLayout.JAVA_LONG, 0);
				if (partial != 0) {
					Cu.cuGraphDestroy(partial);
				}
			}
			throw ex;
		}
		this.device.makeCurrent();
		CuErrors.check("cuStreamEndCapture", Cu.cuStreamEndCapture(this.stream, this.scratch.address()), this.deviceId);
		long graph = this.scratch.get(ValueLayout.JAVA_LONG, 0);
		int instantiated = Cu.cuGraphInstantiateWithFlags(this.scratch.address(), graph, 0);
		long exec = this.scratch.get(ValueLayout.JAVA_LONG, 0);
		CuErrors.checkQuietly("cuGraphDestroy", Cu.cuGraphDestroy(graph), this.deviceId);
		CuErrors.check("cuGraphInstantiate", instantiated, this.deviceId);
		return new FfmGraph(this.device, exec);
	}

	@Override
	public void launch(BackendGraph graph) {
		this.device.makeCurrent();
		CuErrors.check("cuGraphLaunch", Cu.cuGraphLaunch(((FfmGraph) graph).exec(), this.stream), this.deviceId);
	}

	@Override
	public void record(BackendEvent event) {
		this.device.makeCurrent();
		CuErrors.check("cuEventRecord", Cu.cuEventRecord(((FfmEvent) event).address(), this.stream), this.deviceId);
	}

	@Override
	public void waitFor(BackendEvent event) {
		this.device.makeCurrent();
		CuErrors.check("cuStreamWaitEvent", Cu.cuStreamWaitEvent(this.stream, ((FfmEvent) event).address(), 0),
				this.deviceId);
	}

	@Override
	public boolean query() {
		this.device.makeCurrent();
		return CuErrors.isDone("cuStreamQuery", Cu.cuStreamQuery(this.stream), this.deviceId);
	}

	@Override
	public void synchronize() {
		this.device.makeCurrent();
		CuErrors.check("cuStreamSynchronize", Cu.cuStreamSynchronize(this.stream), this.deviceId);
	}

	/**
	 * Returns the stream's address.
	 * @return a {@link Long}
	 */
	@Override
	public Object handle() {
		return this.handle;
	}

	@Override
	public long nativeAddress() {
		return this.stream;
	}

	@Override
	public void makeCurrent() {
		this.device.makeCurrent();
	}

	/**
	 * Offers this binding's cuBLAS ({@link FfmCublas}), so that BLAS calls on this
	 * backend need no JNA.
	 */
	@Override
	public <T> @Nullable T libraryBinding(Class<T> type) {
		return (type == CublasBinding.Loader.class) ? type.cast(FfmCublas.LOADER) : null;
	}

	/**
	 * Runs the call now on this thread with the device's context current: a library
	 * (cuBLAS) enqueues on the stream itself, through the handle bound to it.
	 */
	@Override
	public void callLibrary(String operation, Runnable call) {
		this.device.makeCurrent();
		call.run();
	}

	/**
	 * Returns the stream as a {@link Long} (or {@code long}) address, as itself (for this
	 * package), or as a JCuda {@code CUstream} (or {@code cudaStream_t}) where JCuda is
	 * on the class path.
	 */
	@Override
	public <T> @Nullable T handle(Class<T> type) {
		if (type == Long.class || type == long.class || type == Object.class || type == Number.class) {
			@SuppressWarnings("unchecked")
			T address = (T) this.handle;
			return address;
		}
		if (type == FfmStream.class) {
			return type.cast(this);
		}
		if (JCudaHandles.isJCudaType(type)) {
			Object jcuda = this.jcudaStream;
			if (jcuda == null || !type.isInstance(jcuda)) {
				jcuda = JCudaHandles.wrap(type, this.stream);
				this.jcudaStream = jcuda;
			}
			return type.cast(jcuda);
		}
		return null;
	}

	/**
	 * Destroys the stream, then frees its parameter storage. Never throws: a failure is
	 * logged, because destroying runs while pools and registries close.
	 */
	@Override
	public synchronized void destroy() {
		if (this.destroyed) {
			return;
		}
		this.destroyed = true;
		try {
			this.device.makeCurrent();
			CuErrors.checkQuietly("cuStreamDestroy", Cu.cuStreamDestroy(this.stream), this.deviceId);
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
		finally {
			// After the stream: the driver copied every launch's arguments when it was
			// enqueued, so nothing reads this memory any more; a launch after destroy
			// fails on the closed arena instead of writing freed memory.
			this.arena.close();
		}
	}

	@Override
	public String toString() {
		return "FfmStream[0x" + Long.toHexString(this.stream) + " on device " + this.deviceId + "]";
	}

}
