package dev.offload.blas;

/**
 * Whether a BLAS operation uses a matrix as stored or its transpose
 * ({@code cublasOperation_t}). Matrices are column-major, as in cuBLAS.
 */
public enum Transpose {

	/** The matrix as stored ({@code CUBLAS_OP_N}). */
	NONE(0),

	/** Its transpose ({@code CUBLAS_OP_T}). */
	TRANSPOSE(1);

	private final int code;

	Transpose(int code) {
		this.code = code;
	}

	/** The value of {@code cublasOperation_t}. */
	int code() {
		return this.code;
	}

}
