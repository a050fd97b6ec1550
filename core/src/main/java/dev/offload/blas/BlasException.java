package dev.offload.blas;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;

/**
 * A BLAS call failed: names the call (e.g. {@code cublasSgemm_v2}) and cuBLAS's status
 * ({@code CUBLAS_STATUS_EXECUTION_FAILED}, ...). It fails the session's work as a failed
 * launch does; a {@linkplain #isSticky() sticky} one (the call met a sticky CUDA error of
 * the device, which is then its cause) fails the device.
 */
public class BlasException extends BackendException {

	private final int status;

	/**
	 * Creates an exception.
	 * @param call the call that failed
	 * @param status cuBLAS's status code ({@code cublasStatus_t}), or -1 when none
	 * applies (an error of the emulation or an injected fault)
	 * @param statusName the status's name, e.g. {@code CUBLAS_STATUS_INVALID_VALUE}
	 * @param statusText cuBLAS's description of the status
	 * @param deviceId the device
	 * @param sticky whether the device is unusable
	 * @param cause the CUDA error behind it, or {@code null}
	 */
	public BlasException(String call, int status, String statusName, String statusText, int deviceId, boolean sticky,
			@Nullable Throwable cause) {
		super(call, statusName, statusText, deviceId, sticky, cause);
		this.status = status;
	}

	/**
	 * Returns cuBLAS's status code.
	 * @return the {@code cublasStatus_t} value, or -1
	 */
	public int getStatus() {
		return this.status;
	}

	/**
	 * Returns the status's name, the same as {@link #getErrorName()}.
	 * @return e.g. {@code CUBLAS_STATUS_EXECUTION_FAILED}
	 */
	public String getStatusName() {
		return getErrorName();
	}

}
