package dev.offload.internal.blas;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The cuBLAS v2 functions Offload calls, by address: handles, streams and device memory
 * are {@code long}s, and each function returns its {@code cublasStatus_t}. One
 * implementation per way of calling C: JNA (core, every Java version) and the foreign
 * function API (offload-backend-ffm, Java 22+), chosen by the backend that runs the
 * stream, without a change above this interface. A binding is thread-safe.
 * <p>
 * The calls on one handle go through its {@link Handle}, which keeps the host memory that
 * scalars ({@code alpha}, {@code beta}) are passed through
 * ({@code CUBLAS_POINTER_MODE_HOST}: cuBLAS reads them before the call returns),
 * allocated once with the handle: a call allocates no native memory. A dot's result is a
 * device address (device pointer mode), so that it needs no host memory either. A handle
 * is used by one thread at a time (the session's), with the device's context current.
 */
public interface CublasBinding {

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
	 * @param handle receives the handle's address
	 * @return the status
	 */
	int create(long[] handle);

	/**
	 * Returns the calls on a handle that {@link #create} made, with the host memory of
	 * their scalars allocated now, once; {@link Handle#destroy()} frees it.
	 * @param handle the handle's address
	 * @return the handle's calls
	 */
	Handle handle(long handle);

	/**
	 * Returns a status's name ({@code cublasGetStatusName}).
	 * @param status the status
	 * @return e.g. {@code CUBLAS_STATUS_INVALID_VALUE}
	 */
	String statusName(int status);

	/**
	 * Returns a status's description ({@code cublasGetStatusString}).
	 * @param status the status
	 * @return the text, or empty where the library has none
	 */
	String statusText(int status);

	/**
	 * The calls on one cuBLAS handle, each returning its status; the functions' names and
	 * arguments are cuBLAS's, without the handle.
	 */
	interface Handle {

		/**
		 * Returns the handle's address.
		 * @return the {@code cublasHandle_t}
		 */
		long address();

		/**
		 * Destroys the handle ({@code cublasDestroy_v2}, which synchronizes the device)
		 * and frees the scalars' memory.
		 * @return the status
		 */
		int destroy();

		int setStream(long stream);

		int setWorkspace(long workspace, long bytes);

		int setMathMode(int mode);

		int setPointerMode(int mode);

		int sgemm(int transA, int transB, int m, int n, int k, float alpha, long a, int lda, long b, int ldb,
				float beta, long c, int ldc);

		int dgemm(int transA, int transB, int m, int n, int k, double alpha, long a, int lda, long b, int ldb,
				double beta, long c, int ldc);

		int sgemmStridedBatched(int transA, int transB, int m, int n, int k, float alpha, long a, int lda, long strideA,
				long b, int ldb, long strideB, float beta, long c, int ldc, long strideC, int batchCount);

		int dgemmStridedBatched(int transA, int transB, int m, int n, int k, double alpha, long a, int lda,
				long strideA, long b, int ldb, long strideB, double beta, long c, int ldc, long strideC,
				int batchCount);

		int sgemv(int trans, int m, int n, float alpha, long a, int lda, long x, int incx, float beta, long y,
				int incy);

		int dgemv(int trans, int m, int n, double alpha, long a, int lda, long x, int incx, double beta, long y,
				int incy);

		int saxpy(int n, float alpha, long x, int incx, long y, int incy);

		int daxpy(int n, double alpha, long x, int incx, long y, int incy);

		/**
		 * {@code cublasSdot_v2}; {@code result} is a device address in device pointer
		 * mode.
		 */
		int sdot(int n, long x, int incx, long y, int incy, long result);

		int ddot(int n, long x, int incx, long y, int incy, long result);

	}

	/**
	 * Opens cuBLAS through one way of calling C; a backend that brings its own gives one
	 * through {@link dev.offload.spi.BackendStream#libraryBinding(Class)}.
	 */
	interface Loader {

		/**
		 * Returns the binding's name, for keys and messages.
		 * @return e.g. {@code jna} or {@code ffm}
		 */
		String name();

		/**
		 * Loads cuBLAS from the first of {@code candidates} that loads.
		 * @param candidates sonames or paths, in order
		 * @param attempts receives each candidate that failed, with why
		 * @return the binding, or {@code null} if none loaded
		 */
		@Nullable CublasBinding open(List<String> candidates, Map<String, String> attempts);

	}

}
