package dev.offload.blas;

/**
 * The cuBLAS v2 functions Offload calls, by address: handles, streams and device memory
 * are {@code long}s, scalars are passed by value and handed to cuBLAS through host
 * pointers ({@code CUBLAS_POINTER_MODE_HOST}), and each function returns its
 * {@code cublasStatus_t}. One implementation per way of calling C: JNA today
 * ({@link JnaCublas}, every Java version), the FFM API later (Java 22+), without a change
 * above this interface. Implementations are thread-safe; a handle is used by one thread
 * at a time (the session's), and the caller has the device's context current.
 */
interface CublasBinding {

	/** {@code cublasPointerMode_t}: scalars are read from host memory. */
	int POINTER_MODE_HOST = 0;

	/** {@code cublasPointerMode_t}: scalars (and a dot's result) are in device memory. */
	int POINTER_MODE_DEVICE = 1;

	/**
	 * Returns the library and its version, e.g. {@code cuBLAS 13.0.2 (libcublas.so.13)}.
	 * @return the description
	 */
	String version();

	/**
	 * Creates a handle ({@code cublasCreate_v2}).
	 * @param handle receives the handle
	 * @return the status
	 */
	int create(long[] handle);

	int destroy(long handle);

	int setStream(long handle, long stream);

	int setWorkspace(long handle, long workspace, long bytes);

	int setMathMode(long handle, int mode);

	int setPointerMode(long handle, int mode);

	int sgemm(long handle, int transA, int transB, int m, int n, int k, float alpha, long a, int lda, long b, int ldb,
			float beta, long c, int ldc);

	int dgemm(long handle, int transA, int transB, int m, int n, int k, double alpha, long a, int lda, long b, int ldb,
			double beta, long c, int ldc);

	int sgemmStridedBatched(long handle, int transA, int transB, int m, int n, int k, float alpha, long a, int lda,
			long strideA, long b, int ldb, long strideB, float beta, long c, int ldc, long strideC, int batchCount);

	int dgemmStridedBatched(long handle, int transA, int transB, int m, int n, int k, double alpha, long a, int lda,
			long strideA, long b, int ldb, long strideB, double beta, long c, int ldc, long strideC, int batchCount);

	int sgemv(long handle, int trans, int m, int n, float alpha, long a, int lda, long x, int incx, float beta, long y,
			int incy);

	int dgemv(long handle, int trans, int m, int n, double alpha, long a, int lda, long x, int incx, double beta,
			long y, int incy);

	int saxpy(long handle, int n, float alpha, long x, int incx, long y, int incy);

	int daxpy(long handle, int n, double alpha, long x, int incx, long y, int incy);

	/**
	 * {@code cublasSdot_v2}; {@code result} is a device address in device pointer mode.
	 */
	int sdot(long handle, int n, long x, int incx, long y, int incy, long result);

	int ddot(long handle, int n, long x, int incx, long y, int incy, long result);

	/**
	 * Returns a status's name ({@code cublasGetStatusName}).
	 * @param status the status
	 * @return e.g. {@code CUBLAS_STATUS_INVALID_VALUE}
	 */
	String statusName(int status);

	/**
	 * Returns a status's description ({@code cublasGetStatusString}).
	 * @param status the status
	 * @return the text
	 */
	String statusText(int status);

}
