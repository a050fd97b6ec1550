package dev.offload.internal.blas;

/**
 * The values and names of {@code cublasStatus_t}, for checks and for a cuBLAS without
 * {@code cublasGetStatusName}.
 */
public final class CublasStatus {

	/** {@code CUBLAS_STATUS_SUCCESS}. */
	public static final int SUCCESS = 0;

	/** {@code CUBLAS_STATUS_EXECUTION_FAILED}: the GPU failed to run the call. */
	public static final int EXECUTION_FAILED = 13;

	/** {@code CUBLAS_STATUS_INTERNAL_ERROR}: an internal operation (a copy) failed. */
	public static final int INTERNAL_ERROR = 14;

	private CublasStatus() {
	}

	/**
	 * Returns a status's name.
	 * @param status the status
	 * @return e.g. {@code CUBLAS_STATUS_EXECUTION_FAILED}, or {@code CUBLAS_STATUS_99}
	 * for an unknown one
	 */
	public static String name(int status) {
		return switch (status) {
			case 0 -> "CUBLAS_STATUS_SUCCESS";
			case 1 -> "CUBLAS_STATUS_NOT_INITIALIZED";
			case 3 -> "CUBLAS_STATUS_ALLOC_FAILED";
			case 7 -> "CUBLAS_STATUS_INVALID_VALUE";
			case 8 -> "CUBLAS_STATUS_ARCH_MISMATCH";
			case 11 -> "CUBLAS_STATUS_MAPPING_ERROR";
			case 13 -> "CUBLAS_STATUS_EXECUTION_FAILED";
			case 14 -> "CUBLAS_STATUS_INTERNAL_ERROR";
			case 15 -> "CUBLAS_STATUS_NOT_SUPPORTED";
			case 16 -> "CUBLAS_STATUS_LICENSE_ERROR";
			default -> "CUBLAS_STATUS_" + status;
		};
	}

}
