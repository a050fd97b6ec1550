package dev.offload.backend.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The one way into the driver: each method calls the driver function of the same name and
 * returns its {@code CUresult}. Handles ({@code CUstream}, {@code CUfunction}, ...),
 * device pointers and the addresses of out-parameters are passed as {@code long}s, which
 * the 64-bit Linux ABIs pass as they pass pointers: a call allocates nothing on the Java
 * heap or in native memory.
 * <p>
 * The calls that only enqueue or ask ({@code cuLaunchKernel}, the {@code cuMemcpy*Async},
 * {@code cuMemsetD8Async}, {@code cuEventRecord}, {@code cuStreamWaitEvent},
 * {@code cuStreamQuery}, {@code cuEventQuery}) are linked as critical: no transition of
 * the thread's state around them. Every call that waits for the device
 * ({@code cuStreamSynchronize}, {@code cuEventSynchronize}, {@code cuCtxSynchronize}) or
 * may synchronize it (frees, destroys, allocations) is not, so that a thread waiting in
 * the driver never holds up the JVM's safepoints.
 * <p>
 * The handles are resolved when this class initializes, which happens only after
 * {@link DriverLibrary#load} succeeded.
 */
final class Cu {

	private static final Linker LINKER = Linker.nativeLinker();

	private static final Linker.Option[] CRITICAL = { Linker.Option.critical(false) };

	private static final Linker.Option[] BLOCKING = {};

	// Initialization and discovery.
	private static final MethodHandle cuInit = bind("cuInit", BLOCKING, JAVA_INT);

	private static final MethodHandle cuDriverGetVersion = bind("cuDriverGetVersion", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuDeviceGetCount = bind("cuDeviceGetCount", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuDeviceGet = bind("cuDeviceGet", BLOCKING, JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuDeviceGetName = bind("cuDeviceGetName", BLOCKING, JAVA_LONG, JAVA_INT,
			JAVA_INT);

	private static final MethodHandle cuDeviceGetAttribute = bind("cuDeviceGetAttribute", BLOCKING, JAVA_LONG, JAVA_INT,
			JAVA_INT);

	private static final MethodHandle cuDeviceGetUuid = bind("cuDeviceGetUuid", BLOCKING, JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuDeviceTotalMem = bind("cuDeviceTotalMem", BLOCKING, JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuGetErrorName = bind("cuGetErrorName", BLOCKING, JAVA_INT, JAVA_LONG);

	private static final MethodHandle cuGetErrorString = bind("cuGetErrorString", BLOCKING, JAVA_INT, JAVA_LONG);

	// Contexts.
	private static final MethodHandle cuDevicePrimaryCtxRetain = bind("cuDevicePrimaryCtxRetain", BLOCKING, JAVA_LONG,
			JAVA_INT);

	private static final MethodHandle cuDevicePrimaryCtxRelease = bind("cuDevicePrimaryCtxRelease", BLOCKING, JAVA_INT);

	private static final MethodHandle cuCtxSetCurrent = bind("cuCtxSetCurrent", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuCtxGetCurrent = bind("cuCtxGetCurrent", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuCtxSynchronize = bind("cuCtxSynchronize", BLOCKING);

	private static final MethodHandle cuCtxGetStreamPriorityRange = bind("cuCtxGetStreamPriorityRange", BLOCKING,
			JAVA_LONG, JAVA_LONG);

	// Streams and graphs.
	private static final MethodHandle cuStreamCreateWithPriority = bind("cuStreamCreateWithPriority", BLOCKING,
			JAVA_LONG, JAVA_INT, JAVA_INT);

	private static final MethodHandle cuStreamQuery = bind("cuStreamQuery", CRITICAL, JAVA_LONG);

	private static final MethodHandle cuStreamSynchronize = bind("cuStreamSynchronize", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuStreamWaitEvent = bind("cuStreamWaitEvent", CRITICAL, JAVA_LONG, JAVA_LONG,
			JAVA_INT);

	private static final MethodHandle cuStreamBeginCapture = bind("cuStreamBeginCapture", BLOCKING, JAVA_LONG,
			JAVA_INT);

	private static final MethodHandle cuStreamEndCapture = bind("cuStreamEndCapture", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuGraphInstantiateWithFlags = bind("cuGraphInstantiateWithFlags", BLOCKING,
			JAVA_LONG, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuGraphLaunch = bind("cuGraphLaunch", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuGraphDestroy = bind("cuGraphDestroy", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuGraphExecDestroy = bind("cuGraphExecDestroy", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuStreamDestroy = bind("cuStreamDestroy", BLOCKING, JAVA_LONG);

	// Events.
	private static final MethodHandle cuEventCreate = bind("cuEventCreate", BLOCKING, JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuEventRecord = bind("cuEventRecord", CRITICAL, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuEventQuery = bind("cuEventQuery", CRITICAL, JAVA_LONG);

	private static final MethodHandle cuEventSynchronize = bind("cuEventSynchronize", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuEventDestroy = bind("cuEventDestroy", BLOCKING, JAVA_LONG);

	// Memory.
	private static final MethodHandle cuMemAlloc = bind("cuMemAlloc", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuMemAllocAsync = bind("cuMemAllocAsync", BLOCKING, JAVA_LONG, JAVA_LONG,
			JAVA_LONG);

	private static final MethodHandle cuMemFreeAsync = bind("cuMemFreeAsync", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuMemGetInfo = bind("cuMemGetInfo", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuMemFree = bind("cuMemFree", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuMemHostAlloc = bind("cuMemHostAlloc", BLOCKING, JAVA_LONG, JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuMemHostGetDevicePointer = bind("cuMemHostGetDevicePointer", BLOCKING, JAVA_LONG,
			JAVA_LONG, JAVA_INT);

	private static final MethodHandle cuMemFreeHost = bind("cuMemFreeHost", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuMemcpyAsync = bind("cuMemcpyAsync", CRITICAL, JAVA_LONG, JAVA_LONG, JAVA_LONG,
			JAVA_LONG);

	private static final MethodHandle cuMemcpyHtoDAsync = bind("cuMemcpyHtoDAsync", CRITICAL, JAVA_LONG, JAVA_LONG,
			JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuMemcpyDtoHAsync = bind("cuMemcpyDtoHAsync", CRITICAL, JAVA_LONG, JAVA_LONG,
			JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuMemsetD8Async = bind("cuMemsetD8Async", CRITICAL, JAVA_LONG, JAVA_BYTE,
			JAVA_LONG, JAVA_LONG);

	// Modules and launches.
	private static final MethodHandle cuModuleLoadData = bind("cuModuleLoadData", BLOCKING, JAVA_LONG, JAVA_LONG);

	private static final MethodHandle cuModuleGetFunction = bind("cuModuleGetFunction", BLOCKING, JAVA_LONG, JAVA_LONG,
			JAVA_LONG);

	private static final MethodHandle cuModuleUnload = bind("cuModuleUnload", BLOCKING, JAVA_LONG);

	private static final MethodHandle cuLaunchKernel = bind("cuLaunchKernel", CRITICAL, JAVA_LONG, JAVA_INT, JAVA_INT,
			JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);

	private Cu() {
	}

	private static MethodHandle bind(String name, Linker.Option[] options, MemoryLayout... arguments) {
		return LINKER.downcallHandle(DriverLibrary.get().address(name), FunctionDescriptor.of(JAVA_INT, arguments),
				options);
	}

	/**
	 * A downcall failed in the linker, not in the driver: a mismatch of this class with
	 * its handles, which no input causes.
	 */
	private static IllegalStateException linkFailure(String name, Throwable ex) {
		if (ex instanceof Error error) {
			throw error;
		}
		if (ex instanceof RuntimeException runtime) {
			throw runtime;
		}
		return new IllegalStateException("The downcall of " + name + " failed", ex);
	}

	static int cuInit(int flags) {
		try {
			return (int) cuInit.invokeExact(flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuInit", ex);
		}
	}

	static int cuDriverGetVersion(long version) {
		try {
			return (int) cuDriverGetVersion.invokeExact(version);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDriverGetVersion", ex);
		}
	}

	static int cuDeviceGetCount(long count) {
		try {
			return (int) cuDeviceGetCount.invokeExact(count);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceGetCount", ex);
		}
	}

	static int cuDeviceGet(long device, int ordinal) {
		try {
			return (int) cuDeviceGet.invokeExact(device, ordinal);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceGet", ex);
		}
	}

	static int cuDeviceGetName(long name, int length, int device) {
		try {
			return (int) cuDeviceGetName.invokeExact(name, length, device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceGetName", ex);
		}
	}

	static int cuDeviceGetAttribute(long value, int attribute, int device) {
		try {
			return (int) cuDeviceGetAttribute.invokeExact(value, attribute, device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceGetAttribute", ex);
		}
	}

	static int cuDeviceGetUuid(long uuid, int device) {
		try {
			return (int) cuDeviceGetUuid.invokeExact(uuid, device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceGetUuid", ex);
		}
	}

	static int cuDeviceTotalMem(long bytes, int device) {
		try {
			return (int) cuDeviceTotalMem.invokeExact(bytes, device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDeviceTotalMem", ex);
		}
	}

	static int cuGetErrorName(int result, long name) {
		try {
			return (int) cuGetErrorName.invokeExact(result, name);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGetErrorName", ex);
		}
	}

	static int cuGetErrorString(int result, long text) {
		try {
			return (int) cuGetErrorString.invokeExact(result, text);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGetErrorString", ex);
		}
	}

	static int cuDevicePrimaryCtxRetain(long context, int device) {
		try {
			return (int) cuDevicePrimaryCtxRetain.invokeExact(context, device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDevicePrimaryCtxRetain", ex);
		}
	}

	static int cuDevicePrimaryCtxRelease(int device) {
		try {
			return (int) cuDevicePrimaryCtxRelease.invokeExact(device);
		}
		catch (Throwable ex) {
			throw linkFailure("cuDevicePrimaryCtxRelease", ex);
		}
	}

	static int cuCtxSetCurrent(long context) {
		try {
			return (int) cuCtxSetCurrent.invokeExact(context);
		}
		catch (Throwable ex) {
			throw linkFailure("cuCtxSetCurrent", ex);
		}
	}

	static int cuCtxGetCurrent(long context) {
		try {
			return (int) cuCtxGetCurrent.invokeExact(context);
		}
		catch (Throwable ex) {
			throw linkFailure("cuCtxGetCurrent", ex);
		}
	}

	static int cuCtxSynchronize() {
		try {
			return (int) cuCtxSynchronize.invokeExact();
		}
		catch (Throwable ex) {
			throw linkFailure("cuCtxSynchronize", ex);
		}
	}

	static int cuCtxGetStreamPriorityRange(long least, long greatest) {
		try {
			return (int) cuCtxGetStreamPriorityRange.invokeExact(least, greatest);
		}
		catch (Throwable ex) {
			throw linkFailure("cuCtxGetStreamPriorityRange", ex);
		}
	}

	static int cuStreamCreateWithPriority(long stream, int flags, int priority) {
		try {
			return (int) cuStreamCreateWithPriority.invokeExact(stream, flags, priority);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamCreateWithPriority", ex);
		}
	}

	static int cuStreamQuery(long stream) {
		try {
			return (int) cuStreamQuery.invokeExact(stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamQuery", ex);
		}
	}

	static int cuStreamSynchronize(long stream) {
		try {
			return (int) cuStreamSynchronize.invokeExact(stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamSynchronize", ex);
		}
	}

	static int cuStreamWaitEvent(long stream, long event, int flags) {
		try {
			return (int) cuStreamWaitEvent.invokeExact(stream, event, flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamWaitEvent", ex);
		}
	}

	static int cuStreamBeginCapture(long stream, int mode) {
		try {
			return (int) cuStreamBeginCapture.invokeExact(stream, mode);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamBeginCapture", ex);
		}
	}

	static int cuStreamEndCapture(long stream, long graph) {
		try {
			return (int) cuStreamEndCapture.invokeExact(stream, graph);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamEndCapture", ex);
		}
	}

	static int cuGraphInstantiateWithFlags(long exec, long graph, long flags) {
		try {
			return (int) cuGraphInstantiateWithFlags.invokeExact(exec, graph, flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGraphInstantiateWithFlags", ex);
		}
	}

	static int cuGraphLaunch(long exec, long stream) {
		try {
			return (int) cuGraphLaunch.invokeExact(exec, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGraphLaunch", ex);
		}
	}

	static int cuGraphDestroy(long graph) {
		try {
			return (int) cuGraphDestroy.invokeExact(graph);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGraphDestroy", ex);
		}
	}

	static int cuGraphExecDestroy(long exec) {
		try {
			return (int) cuGraphExecDestroy.invokeExact(exec);
		}
		catch (Throwable ex) {
			throw linkFailure("cuGraphExecDestroy", ex);
		}
	}

	static int cuStreamDestroy(long stream) {
		try {
			return (int) cuStreamDestroy.invokeExact(stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuStreamDestroy", ex);
		}
	}

	static int cuEventCreate(long event, int flags) {
		try {
			return (int) cuEventCreate.invokeExact(event, flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuEventCreate", ex);
		}
	}

	static int cuEventRecord(long event, long stream) {
		try {
			return (int) cuEventRecord.invokeExact(event, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuEventRecord", ex);
		}
	}

	static int cuEventQuery(long event) {
		try {
			return (int) cuEventQuery.invokeExact(event);
		}
		catch (Throwable ex) {
			throw linkFailure("cuEventQuery", ex);
		}
	}

	static int cuEventSynchronize(long event) {
		try {
			return (int) cuEventSynchronize.invokeExact(event);
		}
		catch (Throwable ex) {
			throw linkFailure("cuEventSynchronize", ex);
		}
	}

	static int cuEventDestroy(long event) {
		try {
			return (int) cuEventDestroy.invokeExact(event);
		}
		catch (Throwable ex) {
			throw linkFailure("cuEventDestroy", ex);
		}
	}

	static int cuMemAlloc(long pointer, long bytes) {
		try {
			return (int) cuMemAlloc.invokeExact(pointer, bytes);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemAlloc", ex);
		}
	}

	static int cuMemAllocAsync(long pointer, long bytes, long stream) {
		try {
			return (int) cuMemAllocAsync.invokeExact(pointer, bytes, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemAllocAsync", ex);
		}
	}

	static int cuMemFreeAsync(long pointer, long stream) {
		try {
			return (int) cuMemFreeAsync.invokeExact(pointer, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemFreeAsync", ex);
		}
	}

	static int cuMemGetInfo(long free, long total) {
		try {
			return (int) cuMemGetInfo.invokeExact(free, total);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemGetInfo", ex);
		}
	}

	static int cuMemFree(long pointer) {
		try {
			return (int) cuMemFree.invokeExact(pointer);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemFree", ex);
		}
	}

	static int cuMemHostAlloc(long pointer, long bytes, int flags) {
		try {
			return (int) cuMemHostAlloc.invokeExact(pointer, bytes, flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemHostAlloc", ex);
		}
	}

	static int cuMemHostGetDevicePointer(long mapped, long host, int flags) {
		try {
			return (int) cuMemHostGetDevicePointer.invokeExact(mapped, host, flags);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemHostGetDevicePointer", ex);
		}
	}

	static int cuMemFreeHost(long pointer) {
		try {
			return (int) cuMemFreeHost.invokeExact(pointer);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemFreeHost", ex);
		}
	}

	/**
	 * Copies host memory to the device, as C's light-request floor does ({@code _v2}).
	 * @param dst the device address
	 * @param src the host address
	 * @param bytes the bytes
	 * @param stream the stream
	 * @return the result
	 */
	static int cuMemcpyHtoDAsync(long dst, long src, long bytes, long stream) {
		try {
			return (int) cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemcpyHtoDAsync", ex);
		}
	}

	/**
	 * Copies device memory to the host, as C's light-request floor does ({@code _v2}).
	 * @param dst the host address
	 * @param src the device address
	 * @param bytes the bytes
	 * @param stream the stream
	 * @return the result
	 */
	static int cuMemcpyDtoHAsync(long dst, long src, long bytes, long stream) {
		try {
			return (int) cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemcpyDtoHAsync", ex);
		}
	}

	static int cuMemcpyAsync(long dst, long src, long bytes, long stream) {
		try {
			return (int) cuMemcpyAsync.invokeExact(dst, src, bytes, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemcpyAsync", ex);
		}
	}

	static int cuMemsetD8Async(long dst, byte value, long bytes, long stream) {
		try {
			return (int) cuMemsetD8Async.invokeExact(dst, value, bytes, stream);
		}
		catch (Throwable ex) {
			throw linkFailure("cuMemsetD8Async", ex);
		}
	}

	static int cuModuleLoadData(long module, long image) {
		try {
			return (int) cuModuleLoadData.invokeExact(module, image);
		}
		catch (Throwable ex) {
			throw linkFailure("cuModuleLoadData", ex);
		}
	}

	static int cuModuleGetFunction(long function, long module, long name) {
		try {
			return (int) cuModuleGetFunction.invokeExact(function, module, name);
		}
		catch (Throwable ex) {
			throw linkFailure("cuModuleGetFunction", ex);
		}
	}

	static int cuModuleUnload(long module) {
		try {
			return (int) cuModuleUnload.invokeExact(module);
		}
		catch (Throwable ex) {
			throw linkFailure("cuModuleUnload", ex);
		}
	}

	static int cuLaunchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, long stream, long parameters, long extra) {
		try {
			return (int) cuLaunchKernel.invokeExact(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
					sharedMemoryBytes, stream, parameters, extra);
		}
		catch (Throwable ex) {
			throw linkFailure("cuLaunchKernel", ex);
		}
	}

}
