package dev.offload.backend.cuda;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.BackendException;
import jcuda.driver.CUresult;

/**
 * The one place where {@code CUresult}s are checked: a failure becomes a
 * {@link BackendException} naming the call, CUDA's error name and text, and the device;
 * errors that leave the context unusable are sticky.
 */
final class CudaErrors {

	private static final Logger logger = LoggerFactory.getLogger(CudaErrors.class);

	private CudaErrors() {
	}

	/**
	 * Throws unless {@code result} is {@code CUDA_SUCCESS}.
	 * @param call the driver call, e.g. {@code cuStreamSynchronize}
	 * @param result what it returned
	 * @param deviceId the device, or -1
	 * @throws BackendException if the call failed
	 */
	static void check(String call, int result, int deviceId) {
		if (result != CUresult.CUDA_SUCCESS) {
			throw error(call, result, deviceId);
		}
	}

	/**
	 * Reads the result of a query ({@code cuStreamQuery}, {@code cuEventQuery}): done,
	 * not yet done, or failed.
	 * @param call the driver call
	 * @param result what it returned
	 * @param deviceId the device
	 * @return {@code true} for {@code CUDA_SUCCESS}, {@code false} for
	 * {@code CUDA_ERROR_NOT_READY}
	 * @throws BackendException for any other result
	 */
	static boolean isDone(String call, int result, int deviceId) {
		if (result == CUresult.CUDA_SUCCESS) {
			return true;
		}
		if (result == CUresult.CUDA_ERROR_NOT_READY) {
			return false;
		}
		throw error(call, result, deviceId);
	}

	/**
	 * Logs a failed release call (free, destroy, unload) instead of throwing: releasing
	 * must go on. After a sticky error every such call fails the same way; the device's
	 * failure was already reported, so those are logged at debug level only.
	 * @param call the driver call
	 * @param result what it returned
	 * @param deviceId the device
	 * @return {@code true} if the call succeeded
	 */
	static boolean checkQuietly(String call, int result, int deviceId) {
		if (result == CUresult.CUDA_SUCCESS) {
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
	 * fails too.
	 * @param result a {@code CUresult}
	 * @return {@code true} for sticky errors
	 */
	static boolean isSticky(int result) {
		return CudaResults.isSticky(result);
	}

	static String errorName(int result) {
		if (!CudaDriver.isLoaded()) {
			// Without natives (a unit test without a GPU) JCuda's own table still names
			// the error; touching the driver class would also spoil the probe's first,
			// most telling load error.
			return CUresult.stringFor(result);
		}
		try {
			String[] name = new String[1];
			if (CudaCalls.cuGetErrorName(result, name) == CUresult.CUDA_SUCCESS && name[0] != null) {
				return name[0];
			}
		}
		catch (LinkageError ex) {
			// The natives loaded once; a failure now leaves the table below.
		}
		return CUresult.stringFor(result);
	}

	static String errorText(int result) {
		if (!CudaDriver.isLoaded()) {
			return "CUresult " + result;
		}
		try {
			String[] text = new String[1];
			if (CudaCalls.cuGetErrorString(result, text) == CUresult.CUDA_SUCCESS && text[0] != null) {
				return text[0];
			}
		}
		catch (LinkageError ex) {
			// As above.
		}
		return "CUresult " + result;
	}

}
