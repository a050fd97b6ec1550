package dev.offload.backend.cuda;

import java.util.function.Consumer;

import jcuda.Pointer;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUresult;
import jcuda.driver.CUstreamCaptureMode;

import dev.offload.BackendException;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendGraph;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A {@code CU_STREAM_NON_BLOCKING} stream. {@link #query()} allocates nothing: the
 * device's completion thread calls it in a loop.
 */
final class CudaStream implements BackendStream {

	private final CudaDevice device;

	private final CudaStreamHandle stream;

	private final int deviceId;

	CudaStream(CudaDevice device, CudaStreamHandle stream) {
		this.device = device;
		this.stream = stream;
		this.deviceId = device.ordinal();
	}

	@Override
	public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
		this.device.makeCurrent();
		// Unified addressing: host memory is mapped, so one call covers every direction.
		CudaErrors.check("cuMemcpyAsync", CudaCalls.cuMemcpyAsync(((CudaMemory) dst).at(dstOffset),
				((CudaMemory) src).at(srcOffset), bytes, this.stream), this.deviceId);
	}

	@Override
	public void fill(NativeMemory dst, long offset, long bytes, byte value) {
		this.device.makeCurrent();
		CudaErrors.check("cuMemsetD8Async",
				CudaCalls.cuMemsetD8Async(((CudaMemory) dst).at(offset), value, bytes, this.stream), this.deviceId);
	}

	@Override
	public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, Object[] args) {
		CudaModule.CudaKernel cudaKernel = (CudaModule.CudaKernel) kernel;
		Pointer parameters = (args.length == 0) ? null : parameters(args);
		this.device.makeCurrent();
		int result = CudaCalls.cuLaunchKernel(cudaKernel.function(), gridX, gridY, gridZ, blockX, blockY, blockZ,
				sharedMemoryBytes, this.stream, parameters, null);
		if (result != CUresult.CUDA_SUCCESS) {
			throw CudaErrors
				.error("cuLaunchKernel(" + kernel.name() + ", grid " + gridX + "x" + gridY + "x" + gridZ + ", block "
						+ blockX + "x" + blockY + "x" + blockZ + ", " + sharedMemoryBytes + " bytes of shared memory)",
						result, this.deviceId);
		}
	}

	private static Pointer parameters(Object[] args) {
		Pointer[] values = new Pointer[args.length];
		for (int i = 0; i < args.length; i++) {
			Object arg = args[i];
			if (arg instanceof Integer value) {
				values[i] = Pointer.to(new int[] { value });
			}
			else if (arg instanceof Long value) {
				values[i] = Pointer.to(new long[] { value });
			}
			else if (arg instanceof Float value) {
				values[i] = Pointer.to(new float[] { value });
			}
			else if (arg instanceof Double value) {
				values[i] = Pointer.to(new double[] { value });
			}
			else if (arg instanceof CudaMemory memory) {
				values[i] = Pointer.to(memory.at(0));
			}
			else {
				throw new IllegalArgumentException("Argument " + i + " cannot be passed to a CUDA kernel: "
						+ ((arg != null) ? arg.getClass().getName() : "null"));
			}
		}
		return Pointer.to(values);
	}

	/**
	 * Captures in thread-local mode, so that other threads' allocations and queries go
	 * on; the graph is instantiated at once and its template destroyed (an instantiated
	 * graph does not depend on it).
	 */
	@Override
	public BackendGraph capture(Consumer<BackendStream> steps) {
		this.device.makeCurrent();
		CudaErrors.check("cuStreamBeginCapture",
				CudaCalls.cuStreamBeginCapture(this.stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
				this.deviceId);
		CUgraph graph = new CUgraph();
		try {
			steps.accept(this);
		}
		catch (RuntimeException | Error ex) {
			// Leaves capture mode; the partial graph is of no use.
			if (CudaCalls.cuStreamEndCapture(this.stream, graph) == CUresult.CUDA_SUCCESS) {
				CudaCalls.cuGraphDestroy(graph);
			}
			throw ex;
		}
		this.device.makeCurrent();
		CudaErrors.check("cuStreamEndCapture", CudaCalls.cuStreamEndCapture(this.stream, graph), this.deviceId);
		CUgraphExec exec = new CUgraphExec();
		int instantiated = CudaCalls.cuGraphInstantiate(exec, graph);
		CudaErrors.checkQuietly("cuGraphDestroy", CudaCalls.cuGraphDestroy(graph), this.deviceId);
		CudaErrors.check("cuGraphInstantiate", instantiated, this.deviceId);
		return new CudaGraph(this.device, exec);
	}

	@Override
	public void launch(BackendGraph graph) {
		this.device.makeCurrent();
		CudaErrors.check("cuGraphLaunch", CudaCalls.cuGraphLaunch(((CudaGraph) graph).exec(), this.stream),
				this.deviceId);
	}

	@Override
	public void record(BackendEvent event) {
		this.device.makeCurrent();
		CudaErrors.check("cuEventRecord", CudaCalls.cuEventRecord(((CudaEvent) event).event(), this.stream),
				this.deviceId);
	}

	@Override
	public void waitFor(BackendEvent event) {
		this.device.makeCurrent();
		CudaErrors.check("cuStreamWaitEvent", CudaCalls.cuStreamWaitEvent(this.stream, ((CudaEvent) event).event(), 0),
				this.deviceId);
	}

	@Override
	public boolean query() {
		this.device.makeCurrent();
		return CudaErrors.isDone("cuStreamQuery", CudaCalls.cuStreamQuery(this.stream), this.deviceId);
	}

	@Override
	public void synchronize() {
		this.device.makeCurrent();
		CudaErrors.check("cuStreamSynchronize", CudaCalls.cuStreamSynchronize(this.stream), this.deviceId);
	}

	@Override
	public Object handle() {
		return this.stream;
	}

	@Override
	public long nativeAddress() {
		return this.stream.address();
	}

	@Override
	public void makeCurrent() {
		this.device.makeCurrent();
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
	 * Destroys the stream. Never throws: a failure is logged (after a sticky error every
	 * call fails, and only at debug level), because destroying runs while pools and
	 * registries close.
	 */
	@Override
	public void destroy() {
		try {
			this.device.makeCurrent();
			CudaErrors.checkQuietly("cuStreamDestroy", CudaCalls.cuStreamDestroy(this.stream), this.deviceId);
		}
		catch (BackendException ex) {
			CudaErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public String toString() {
		return "CudaStream[" + this.stream + " on device " + this.deviceId + "]";
	}

}
