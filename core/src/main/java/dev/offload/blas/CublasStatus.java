package dev.offload.blas;

/**
 * The names of {@code cublasStatus_t}, for a cuBLAS without {@code cublasGetStatusName}.
 */
final class CublasStatus {

	static final int SUCCESS = 0;

	static final int EXECUTION_FAILED = 13;

	static final int INTERNAL_ERROR = 14;

	private CublasStatus() {
	}

	static String name(int status) {
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
