package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.BackendException;
import dev.offload.backend.cuda.CudaResults;

/**
 * The one place where {@code CUresult}s are checked, as the JCuda binding's
 * {@code CudaErrors}: a failure becomes a {@link BackendException} naming the call,
 * CUDA's error name and text, and the device; the same errors are sticky. The driver
 * names the errors ({@code cuGetErrorName}, {@code cuGetErrorString}) once it is loaded;
 * before that, a table of the codes this binding meets does.
 */
final class CuErrors {

	static final int CUDA_SUCCESS = 0;

	static final int CUDA_ERROR_INVALID_VALUE = 1;

	static final int CUDA_ERROR_OUT_OF_MEMORY = 2;

	static final int CUDA_ERROR_NOT_INITIALIZED = 3;

	static final int CUDA_ERROR_STUB_LIBRARY = 34;

	static final int CUDA_ERROR_NO_DEVICE = 100;

	static final int CUDA_ERROR_INVALID_CONTEXT = 201;

	static final int CUDA_ERROR_ECC_UNCORRECTABLE = 214;

	static final int CUDA_ERROR_NVLINK_UNCORRECTABLE = 220;

	static final int CUDA_ERROR_INVALID_HANDLE = 400;

	static final int CUDA_ERROR_NOT_FOUND = 500;

	static final int CUDA_ERROR_NOT_READY = 600;

	static final int CUDA_ERROR_ILLEGAL_ADDRESS = 700;

	static final int CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;

	static final int CUDA_ERROR_LAUNCH_TIMEOUT = 702;

	static final int CUDA_ERROR_CONTEXT_IS_DESTROYED = 709;

	static final int CUDA_ERROR_ASSERT = 710;

	static final int CUDA_ERROR_HARDWARE_STACK_ERROR = 714;

	static final int CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;

	static final int CUDA_ERROR_MISALIGNED_ADDRESS = 716;

	static final int CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;

	static final int CUDA_ERROR_INVALID_PC = 718;

	static final int CUDA_ERROR_LAUNCH_FAILED = 719;

	static final int CUDA_ERROR_NOT_SUPPORTED = 801;

	static final int CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901;

	static final int CUDA_ERROR_EXTERNAL_DEVICE = 911;

	static final int CUDA_ERROR_UNKNOWN = 999;

	/** The names of the codes above, for when the driver cannot name them. */
	private static final Map<Integer, String> NAMES = Map.ofEntries(Map.entry(CUDA_SUCCESS, "CUDA_SUCCESS"),
			Map.entry(CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"),
			Map.entry(CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"),
			Map.entry(CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"),
			Map.entry(CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"),
			Map.entry(CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"),
			Map.entry(CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"),
			Map.entry(CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE"),
			Map.entry(CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE"),
			Map.entry(CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"),
			Map.entry(CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"),
			Map.entry(CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"),
			Map.entry(CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"),
			Map.entry(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
			Map.entry(CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT"),
			Map.entry(CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED"),
			Map.entry(CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT"),
			Map.entry(CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR"),
			Map.entry(CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION"),
			Map.entry(CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS"),
			Map.entry(CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE"),
			Map.entry(CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC"),
			Map.entry(CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"),
			Map.entry(CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"),
			Map.entry(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
			Map.entry(CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE"),
			Map.entry(CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"));

	private static final Logger logger = LoggerFactory.getLogger(CuErrors.class);

	private CuErrors() {
	}

	/**
	 * Throws unless {@code result} is {@code CUDA_SUCCESS}.
	 * @param call the driver call, e.g. {@code cuStreamSynchronize}
	 * @param result what it returned
	 * @param deviceId the device, or -1
	 * @throws BackendException if the call failed
	 */
	static void check(String call, int result, int deviceId) {
		if (result != CUDA_SUCCESS) {
			throw error(call, result, deviceId);
		}
	}

	/**
	 * Reads the result of a query: done, not yet done, or failed.
	 * @param call the driver call
	 * @param result what it returned
	 * @param deviceId the device
	 * @return {@code true} for {@code CUDA_SUCCESS}, {@code false} for
	 * {@code CUDA_ERROR_NOT_READY}
	 * @throws BackendException for any other result
	 */
	static boolean isDone(String call, int result, int deviceId) {
		if (result == CUDA_SUCCESS) {
			return true;
		}
		if (result == CUDA_ERROR_NOT_READY) {
			return false;
		}
		throw error(call, result, deviceId);
	}

	/**
	 * Logs a failed release call instead of throwing: releasing must go on. After a
	 * sticky error every such call fails the same way, so those are logged at debug level
	 * only.
	 * @param call the driver call
	 * @param result what it returned
	 * @param deviceId the device
	 * @return {@code true} if the call succeeded
	 */
	static boolean checkQuietly(String call, int result, int deviceId) {
		if (result == CUDA_SUCCESS) {
			return true;
		}
		BackendException error = error(call, result, deviceId);
		if (error.isSticky()) {
			logger.debug("{}", error.getMessage());
		}
		else {
			logger.warn("{}", error.getMessage());
		}
		return false;
	}

	/**
	 * Logs a release that could not even start (the device is closed, or its context
	 * cannot be made current).
	 * @param error the failure
	 */
	static void logReleaseFailure(BackendException error) {
		logger.warn("{}", error.getMessage());
	}

	/**
	 * Describes a failed call.
	 * @param call the driver call
	 * @param result what it returned, not {@code CUDA_SUCCESS}
	 * @param deviceId the device, or -1
	 * @return the exception to throw
	 */
	static BackendException error(String call, int result, int deviceId) {
		return new BackendException(call, errorName(result), errorText(result), deviceId, isSticky(result), null);
	}

	/**
	 * Tells whether an error leaves the context unusable, so that every later call on it
	 * fails too: the set both bindings share ({@link CudaResults}).
	 * @param result a {@code CUresult}
	 * @return {@code true} for sticky errors
	 */
	static boolean isSticky(int result) {
		return CudaResults.isSticky(result);
	}

	/**
	 * Names a result: the driver's name once it is loaded, else this class's table, else
	 * {@code CUresult <code>}.
	 * @param result a {@code CUresult}
	 * @return e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}
	 */
	static String errorName(int result) {
		String name = DriverLibrary.isLoaded() ? driverString(result, true) : null;
		if (name != null) {
			return name;
		}
		String known = NAMES.get(result);
		return (known != null) ? known : "CUresult " + result;
	}

	/**
	 * Describes a result: the driver's text once it is loaded, else
	 * {@code CUresult <code>}.
	 * @param result a {@code CUresult}
	 * @return the text
	 */
	static String errorText(int result) {
		String text = DriverLibrary.isLoaded() ? driverString(result, false) : null;
		return (text != null) ? text : "CUresult " + result;
	}

	private static @org.jspecify.annotations.Nullable String driverString(int result, boolean name) {
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.ADDRESS);
			int found = name ? Cu.cuGetErrorName(result, pointer.address())
					: Cu.cuGetErrorString(result, pointer.address());
			MemorySegment string = pointer.get(ValueLayout.ADDRESS, 0);
			if (found != CUDA_SUCCESS || MemorySegment.NULL.equals(string)) {
				return null;
			}
			return string.reinterpret(4096).getString(0);
		}
		catch (RuntimeException | LinkageError ex) {
			return null;
		}
	}

}
