package dev.offload.backend.cuda;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUuuid;
import jcuda.driver.JCudaDriver;

/**
 * The one way into JCuda's driver API: each method calls the {@link JCudaDriver} function
 * of the same name and returns its {@code CUresult}, whatever JCuda's exception mode.
 * <p>
 * {@link JCudaDriver#setExceptionsEnabled(boolean)} is global to the JVM and applications
 * switch it on at any time (every JCuda sample does). Then every call that does not
 * succeed throws a {@link CudaException} instead of returning its code,
 * {@code CUDA_ERROR_NOT_READY} from a query included. The methods here catch it and
 * return the code again, so that {@link CudaErrors} classifies every failure the same way
 * in both modes. No other class of the backend refers to {@link JCudaDriver}.
 */
final class CudaCalls {

	private static final Logger logger = LoggerFactory.getLogger(CudaCalls.class);

	/**
	 * How {@link CUresult#stringFor(int)} names a code it does not know, followed by the
	 * code.
	 */
	private static final String UNNAMED_RESULT_PREFIX = "INVALID CUresult: ";

	/**
	 * Every {@code CUresult} constant by its name, which is what JCuda's exceptions carry
	 * as their message.
	 */
	private static final Map<String, Integer> resultsByName = resultsByName();

	/**
	 * Flags of page-locked host memory that every device can use and that has a device
	 * address.
	 */
	static final int HOST_ALLOC_PORTABLE_MAPPED = JCudaDriver.CU_MEMHOSTALLOC_PORTABLE
			| JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP;

	private CudaCalls() {
	}

	/**
	 * Runs a driver call and returns its result, also when JCuda threw it as a
	 * {@link CudaException}.
	 * @param call the call
	 * @return the {@code CUresult}
	 */
	static int call(IntSupplier call) {
		try {
			return call.getAsInt();
		}
		catch (CudaException ex) {
			return resultOf(ex);
		}
	}

	/**
	 * Runs a driver call of one argument, as {@link #call(IntSupplier)}; given a method
	 * reference, it allocates nothing, which the completion thread's stream queries need.
	 * @param <T> the argument's type
	 * @param call the call
	 * @param argument its argument
	 * @return the {@code CUresult}
	 */
	static <T> int call(ToIntFunction<T> call, T argument) {
		try {
			return call.applyAsInt(argument);
		}
		catch (CudaException ex) {
			return resultOf(ex);
		}
	}

	/**
	 * Returns the {@code CUresult} that JCuda threw: its exceptions carry
	 * {@link CUresult#stringFor(int)} of the code as their message. Never
	 * {@code CUDA_SUCCESS}: an exception that names no failure is
	 * {@code CUDA_ERROR_UNKNOWN}.
	 * @param exception what JCuda threw
	 * @return the code
	 */
	static int resultOf(CudaException exception) {
		String message = (exception.getMessage() != null) ? exception.getMessage().strip() : "";
		Integer result = resultsByName.get(message);
		if (result == null) {
			result = resultsByName.get(leadingName(message));
		}
		if (result == null && message.startsWith(UNNAMED_RESULT_PREFIX)) {
			result = parseCode(message.substring(UNNAMED_RESULT_PREFIX.length()));
		}
		if (result == null || result == CUresult.CUDA_SUCCESS) {
			// Keep what JCuda said: the BackendException built from the code can only say
			// CUDA_ERROR_UNKNOWN.
			logger.warn("JCuda threw \"{}\", which names no CUresult; treating it as CUDA_ERROR_UNKNOWN", message);
			logger.debug("JCuda's exception", exception);
			return CUresult.CUDA_ERROR_UNKNOWN;
		}
		return result;
	}

	/**
	 * Returns the name a message starts with (JCuda's messages are the bare name; a later
	 * version may add text).
	 */
	private static String leadingName(String message) {
		int end = 0;
		while (end < message.length() && isNameCharacter(message.charAt(end))) {
			end++;
		}
		return message.substring(0, end);
	}

	private static boolean isNameCharacter(char c) {
		return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
	}

	private static @Nullable Integer parseCode(String code) {
		try {
			return Integer.valueOf(code.strip());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static Map<String, Integer> resultsByName() {
		Map<String, Integer> results = new HashMap<>();
		for (Field field : CUresult.class.getFields()) {
			int modifiers = field.getModifiers();
			if (field.getType() == int.class && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)) {
				try {
					results.put(field.getName(), field.getInt(null));
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException("CUresult." + field.getName() + " cannot be read", ex);
				}
			}
		}
		return Map.copyOf(results);
	}

	static int cuInit(int flags) {
		return call(JCudaDriver::cuInit, flags);
	}

	static int cuDriverGetVersion(int[] version) {
		return call(JCudaDriver::cuDriverGetVersion, version);
	}

	static int cuDeviceGetCount(int[] count) {
		return call(JCudaDriver::cuDeviceGetCount, count);
	}

	static int cuDeviceGet(CUdevice device, int ordinal) {
		return call(() -> JCudaDriver.cuDeviceGet(device, ordinal));
	}

	static int cuDeviceGetName(byte[] name, int length, CUdevice device) {
		return call(() -> JCudaDriver.cuDeviceGetName(name, length, device));
	}

	static int cuDeviceGetAttribute(int[] value, int attribute, CUdevice device) {
		return call(() -> JCudaDriver.cuDeviceGetAttribute(value, attribute, device));
	}

	static int cuDeviceGetUuid(CUuuid uuid, CUdevice device) {
		return call(() -> JCudaDriver.cuDeviceGetUuid(uuid, device));
	}

	static int cuDeviceTotalMem(long[] bytes, CUdevice device) {
		return call(() -> JCudaDriver.cuDeviceTotalMem(bytes, device));
	}

	static int cuGetErrorName(int result, String[] name) {
		return call(() -> JCudaDriver.cuGetErrorName(result, name));
	}

	static int cuGetErrorString(int result, String[] text) {
		return call(() -> JCudaDriver.cuGetErrorString(result, text));
	}

	static int cuDevicePrimaryCtxRetain(CUcontext context, CUdevice device) {
		return call(() -> JCudaDriver.cuDevicePrimaryCtxRetain(context, device));
	}

	static int cuDevicePrimaryCtxRelease(CUdevice device) {
		return call(JCudaDriver::cuDevicePrimaryCtxRelease, device);
	}

	static int cuCtxSetCurrent(CUcontext context) {
		return call(JCudaDriver::cuCtxSetCurrent, context);
	}

	static int cuCtxGetStreamPriorityRange(int[] least, int[] greatest) {
		return call(() -> JCudaDriver.cuCtxGetStreamPriorityRange(least, greatest));
	}

	static int cuStreamCreateWithPriority(CUstream stream, int flags, int priority) {
		return call(() -> JCudaDriver.cuStreamCreateWithPriority(stream, flags, priority));
	}

	static int cuStreamQuery(CUstream stream) {
		return call(JCudaDriver::cuStreamQuery, stream);
	}

	static int cuStreamSynchronize(CUstream stream) {
		return call(JCudaDriver::cuStreamSynchronize, stream);
	}

	static int cuStreamWaitEvent(CUstream stream, CUevent event, int flags) {
		return call(() -> JCudaDriver.cuStreamWaitEvent(stream, event, flags));
	}

	static int cuStreamDestroy(CUstream stream) {
		return call(JCudaDriver::cuStreamDestroy, stream);
	}

	static int cuEventCreate(CUevent event, int flags) {
		return call(() -> JCudaDriver.cuEventCreate(event, flags));
	}

	static int cuEventRecord(CUevent event, CUstream stream) {
		return call(() -> JCudaDriver.cuEventRecord(event, stream));
	}

	static int cuEventQuery(CUevent event) {
		return call(JCudaDriver::cuEventQuery, event);
	}

	static int cuEventSynchronize(CUevent event) {
		return call(JCudaDriver::cuEventSynchronize, event);
	}

	static int cuEventDestroy(CUevent event) {
		return call(JCudaDriver::cuEventDestroy, event);
	}

	static int cuMemAlloc(CUdeviceptr pointer, long bytes) {
		return call(() -> JCudaDriver.cuMemAlloc(pointer, bytes));
	}

	static int cuMemFree(CUdeviceptr pointer) {
		return call(JCudaDriver::cuMemFree, pointer);
	}

	static int cuMemHostAlloc(Pointer pointer, long bytes, int flags) {
		return call(() -> JCudaDriver.cuMemHostAlloc(pointer, bytes, flags));
	}

	static int cuMemHostGetDevicePointer(CUdeviceptr mapped, Pointer host, int flags) {
		return call(() -> JCudaDriver.cuMemHostGetDevicePointer(mapped, host, flags));
	}

	static int cuMemFreeHost(Pointer pointer) {
		return call(JCudaDriver::cuMemFreeHost, pointer);
	}

	static int cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, long bytes, CUstream stream) {
		return call(() -> JCudaDriver.cuMemcpyAsync(dst, src, bytes, stream));
	}

	static int cuMemsetD8Async(CUdeviceptr dst, byte value, long bytes, CUstream stream) {
		return call(() -> JCudaDriver.cuMemsetD8Async(dst, value, bytes, stream));
	}

	static int cuModuleLoadData(CUmodule module, byte[] image) {
		return call(() -> JCudaDriver.cuModuleLoadData(module, image));
	}

	static int cuModuleGetFunction(CUfunction function, CUmodule module, String name) {
		return call(() -> JCudaDriver.cuModuleGetFunction(function, module, name));
	}

	static int cuModuleUnload(CUmodule module) {
		return call(JCudaDriver::cuModuleUnload, module);
	}

	static int cuLaunchKernel(CUfunction function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, CUstream stream, @Nullable Pointer parameters, @Nullable Pointer extra) {
		return call(() -> JCudaDriver.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
				sharedMemoryBytes, stream, parameters, extra));
	}

}
