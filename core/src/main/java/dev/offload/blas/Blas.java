package dev.offload.blas;

import java.util.Objects;
import java.util.function.Function;

import dev.offload.BackendException;
import dev.offload.DeviceBuffer;
import dev.offload.LibraryStream;
import dev.offload.OffloadSession;
import dev.offload.spi.NativeMemory;

/**
 * BLAS operations enqueued on a session's stream, on its device buffers, as cuBLAS's v2
 * API defines them: matrices are column-major, with leading dimensions; vectors have
 * increments; scalars ({@code alpha}, {@code beta}) are passed by value. <pre>{@code
 * try (OffloadSession session = device.openSession()) {
 *     Blas blas = Blas.on(session);
 *     DeviceBuffer a = ..., b = ..., c = session.allocate(4L * m * n);
 *     blas.sgemm(Transpose.NONE, Transpose.NONE, m, n, k, 1f, a, m, b, k, 0f, c, m);
 *     session.copy(c, result);
 *     session.synchronize();
 * }
 * }</pre> Each call is asynchronous, ordered with the session's copies and launches;
 * {@code synchronize()} and {@code close()} wait for it, and a failed call fails the
 * session's work ({@link BlasException}; a sticky CUDA error behind it fails the device).
 * Arguments are checked before anything is enqueued (dimensions, leading dimensions at
 * least the rows, buffers of the session's device large enough): a wrong call throws
 * {@link IllegalArgumentException}, never reaches cuBLAS. Increments must be positive.
 * <p>
 * On a GPU the calls go to cuBLAS through the handle the session's pooled stream keeps
 * (created once per stream, with its workspace from the device's budget); on the host
 * backend they run on the CPU with EJML. Used by the session's thread, as the session.
 */
public final class Blas {

	private final OffloadSession session;

	private final BlasLibrary library;

	private final MathMode mathMode;

	Blas(OffloadSession session, BlasLibrary library, MathMode mathMode) {
		this.session = session;
		this.library = library;
		this.mathMode = mathMode;
	}

	/**
	 * Returns the BLAS operations of a session with the
	 * {@linkplain BlasLibrary#standard() standard} library.
	 * @param session an open session
	 * @return the operations
	 */
	public static Blas on(OffloadSession session) {
		return BlasLibrary.standard().on(session);
	}

	/**
	 * Returns these operations with another math mode (TF32 tensor cores for single
	 * precision, or pedantic precision).
	 * @param mode the mode
	 * @return operations on the same session in that mode
	 */
	public Blas withMathMode(MathMode mode) {
		return new Blas(this.session, this.library, Objects.requireNonNull(mode, "mode must not be null"));
	}

	/**
	 * Returns the math mode of these operations.
	 * @return the mode
	 */
	public MathMode mathMode() {
		return this.mathMode;
	}

	/**
	 * Returns the session the operations enqueue on.
	 * @return the session
	 */
	public OffloadSession session() {
		return this.session;
	}

	/**
	 * Enqueues {@code C = alpha op(A) op(B) + beta C} in single precision
	 * ({@code cublasSgemm_v2}), with {@code op(A)} of {@code m x k}, {@code op(B)} of
	 * {@code k x n} and {@code C} of {@code m x n}, all column-major. With {@code beta}
	 * 0, {@code C} is not read.
	 * @param transA whether {@code A} is used transposed (then stored {@code k x m})
	 * @param transB whether {@code B} is used transposed (then stored {@code n x k})
	 * @param m the rows of {@code op(A)} and {@code C}
	 * @param n the columns of {@code op(B)} and {@code C}
	 * @param k the columns of {@code op(A)} and rows of {@code op(B)}
	 * @param alpha the product's factor
	 * @param a {@code A}'s floats
	 * @param lda {@code A}'s leading dimension, at least its stored rows
	 * @param b {@code B}'s floats
	 * @param ldb {@code B}'s leading dimension, at least its stored rows
	 * @param beta {@code C}'s factor
	 * @param c {@code C}'s floats, overwritten
	 * @param ldc {@code C}'s leading dimension, at least {@code m}
	 */
	public void sgemm(Transpose transA, Transpose transB, int m, int n, int k, float alpha, DeviceBuffer a, int lda,
			DeviceBuffer b, int ldb, float beta, DeviceBuffer c, int ldc) {
		gemm(false, transA, transB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1, false);
	}

	/**
	 * Enqueues {@code C = alpha op(A) op(B) + beta C} in double precision
	 * ({@code cublasDgemm_v2}); the arguments as for
	 * {@link #sgemm(Transpose, Transpose, int, int, int, float, DeviceBuffer, int, DeviceBuffer, int, float, DeviceBuffer, int)
	 * sgemm}, with buffers of doubles.
	 * @param transA whether {@code A} is used transposed
	 * @param transB whether {@code B} is used transposed
	 * @param m the rows of {@code op(A)} and {@code C}
	 * @param n the columns of {@code op(B)} and {@code C}
	 * @param k the columns of {@code op(A)} and rows of {@code op(B)}
	 * @param alpha the product's factor
	 * @param a {@code A}'s doubles
	 * @param lda {@code A}'s leading dimension
	 * @param b {@code B}'s doubles
	 * @param ldb {@code B}'s leading dimension
	 * @param beta {@code C}'s factor
	 * @param c {@code C}'s doubles, overwritten
	 * @param ldc {@code C}'s leading dimension
	 */
	public void dgemm(Transpose transA, Transpose transB, int m, int n, int k, double alpha, DeviceBuffer a, int lda,
			DeviceBuffer b, int ldb, double beta, DeviceBuffer c, int ldc) {
		gemm(true, transA, transB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1, false);
	}

	/**
	 * Enqueues {@code batchCount} single-precision GEMMs whose matrices lie at fixed
	 * strides in three buffers ({@code cublasSgemmStridedBatched}): for each {@code i},
	 * {@code C_i = alpha op(A_i) op(B_i) + beta C_i}, with {@code A_i} starting at
	 * element {@code i * strideA} of {@code a}, and so on.
	 * @param transA whether each {@code A_i} is used transposed
	 * @param transB whether each {@code B_i} is used transposed
	 * @param m the rows of each {@code op(A_i)} and {@code C_i}
	 * @param n the columns of each {@code op(B_i)} and {@code C_i}
	 * @param k the inner dimension
	 * @param alpha the products' factor
	 * @param a the {@code A_i}'s floats
	 * @param lda their leading dimension
	 * @param strideA the elements from one {@code A_i} to the next, at least 0
	 * @param b the {@code B_i}'s floats
	 * @param ldb their leading dimension
	 * @param strideB the elements from one {@code B_i} to the next
	 * @param beta the {@code C_i}'s factor
	 * @param c the {@code C_i}'s floats, overwritten
	 * @param ldc their leading dimension
	 * @param strideC the elements from one {@code C_i} to the next
	 * @param batchCount the number of products, at least 1
	 */
	public void sgemmStridedBatched(Transpose transA, Transpose transB, int m, int n, int k, float alpha,
			DeviceBuffer a, int lda, long strideA, DeviceBuffer b, int ldb, long strideB, float beta, DeviceBuffer c,
			int ldc, long strideC, int batchCount) {
		gemm(false, transA, transB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batchCount,
				true);
	}

	/**
	 * Enqueues {@code batchCount} double-precision GEMMs at fixed strides
	 * ({@code cublasDgemmStridedBatched}), as
	 * {@link #sgemmStridedBatched(Transpose, Transpose, int, int, int, float, DeviceBuffer, int, long, DeviceBuffer, int, long, float, DeviceBuffer, int, long, int)
	 * sgemmStridedBatched} with doubles.
	 * @param transA whether each {@code A_i} is used transposed
	 * @param transB whether each {@code B_i} is used transposed
	 * @param m the rows of each {@code op(A_i)} and {@code C_i}
	 * @param n the columns of each {@code op(B_i)} and {@code C_i}
	 * @param k the inner dimension
	 * @param alpha the products' factor
	 * @param a the {@code A_i}'s doubles
	 * @param lda their leading dimension
	 * @param strideA the elements from one {@code A_i} to the next
	 * @param b the {@code B_i}'s doubles
	 * @param ldb their leading dimension
	 * @param strideB the elements from one {@code B_i} to the next
	 * @param beta the {@code C_i}'s factor
	 * @param c the {@code C_i}'s doubles, overwritten
	 * @param ldc their leading dimension
	 * @param strideC the elements from one {@code C_i} to the next
	 * @param batchCount the number of products, at least 1
	 */
	public void dgemmStridedBatched(Transpose transA, Transpose transB, int m, int n, int k, double alpha,
			DeviceBuffer a, int lda, long strideA, DeviceBuffer b, int ldb, long strideB, double beta, DeviceBuffer c,
			int ldc, long strideC, int batchCount) {
		gemm(true, transA, transB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batchCount,
				true);
	}

	/**
	 * Enqueues {@code y = alpha op(A) x + beta y} in single precision
	 * ({@code cublasSgemv_v2}), with {@code A} stored {@code m x n} column-major;
	 * {@code x} has {@code n} elements ({@code m} transposed) and {@code y} {@code m}
	 * ({@code n} transposed).
	 * @param trans whether {@code A} is used transposed
	 * @param m {@code A}'s stored rows
	 * @param n {@code A}'s stored columns
	 * @param alpha the product's factor
	 * @param a {@code A}'s floats
	 * @param lda {@code A}'s leading dimension, at least {@code m}
	 * @param x {@code x}'s floats
	 * @param incx the elements from one of {@code x} to the next, at least 1
	 * @param beta {@code y}'s factor
	 * @param y {@code y}'s floats, overwritten
	 * @param incy the elements from one of {@code y} to the next, at least 1
	 */
	public void sgemv(Transpose trans, int m, int n, float alpha, DeviceBuffer a, int lda, DeviceBuffer x, int incx,
			float beta, DeviceBuffer y, int incy) {
		gemv(false, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
	}

	/**
	 * Enqueues {@code y = alpha op(A) x + beta y} in double precision
	 * ({@code cublasDgemv_v2}).
	 * @param trans whether {@code A} is used transposed
	 * @param m {@code A}'s stored rows
	 * @param n {@code A}'s stored columns
	 * @param alpha the product's factor
	 * @param a {@code A}'s doubles
	 * @param lda {@code A}'s leading dimension, at least {@code m}
	 * @param x {@code x}'s doubles
	 * @param incx {@code x}'s increment, at least 1
	 * @param beta {@code y}'s factor
	 * @param y {@code y}'s doubles, overwritten
	 * @param incy {@code y}'s increment, at least 1
	 */
	public void dgemv(Transpose trans, int m, int n, double alpha, DeviceBuffer a, int lda, DeviceBuffer x, int incx,
			double beta, DeviceBuffer y, int incy) {
		gemv(true, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
	}

	/**
	 * Enqueues {@code y = alpha x + y} on {@code n} floats ({@code cublasSaxpy_v2}).
	 * @param n the elements
	 * @param alpha {@code x}'s factor
	 * @param x {@code x}'s floats
	 * @param incx {@code x}'s increment, at least 1
	 * @param y {@code y}'s floats, overwritten
	 * @param incy {@code y}'s increment, at least 1
	 */
	public void saxpy(int n, float alpha, DeviceBuffer x, int incx, DeviceBuffer y, int incy) {
		axpy(false, n, alpha, x, incx, y, incy);
	}

	/**
	 * Enqueues {@code y = alpha x + y} on {@code n} doubles ({@code cublasDaxpy_v2}).
	 * @param n the elements
	 * @param alpha {@code x}'s factor
	 * @param x {@code x}'s doubles
	 * @param incx {@code x}'s increment, at least 1
	 * @param y {@code y}'s doubles, overwritten
	 * @param incy {@code y}'s increment, at least 1
	 */
	public void daxpy(int n, double alpha, DeviceBuffer x, int incx, DeviceBuffer y, int incy) {
		axpy(true, n, alpha, x, incx, y, incy);
	}

	/**
	 * Enqueues the dot product of {@code n} floats into the first float of {@code result}
	 * ({@code cublasSdot_v2} in device pointer mode: the result stays on the device,
	 * ordered with the session's work, and no thread waits for it; copy it out and
	 * synchronize to read it).
	 * @param n the elements
	 * @param x {@code x}'s floats
	 * @param incx {@code x}'s increment, at least 1
	 * @param y {@code y}'s floats
	 * @param incy {@code y}'s increment, at least 1
	 * @param result receives the dot product at its start
	 */
	public void sdot(int n, DeviceBuffer x, int incx, DeviceBuffer y, int incy, DeviceBuffer result) {
		dot(false, n, x, incx, y, incy, result);
	}

	/**
	 * Enqueues the dot product of {@code n} doubles into the first double of
	 * {@code result} ({@code cublasDdot_v2} in device pointer mode).
	 * @param n the elements
	 * @param x {@code x}'s doubles
	 * @param incx {@code x}'s increment, at least 1
	 * @param y {@code y}'s doubles
	 * @param incy {@code y}'s increment, at least 1
	 * @param result receives the dot product at its start
	 */
	public void ddot(int n, DeviceBuffer x, int incx, DeviceBuffer y, int incy, DeviceBuffer result) {
		dot(true, n, x, incx, y, incy, result);
	}

	private void gemm(boolean doubles, Transpose transA, Transpose transB, int m, int n, int k, double alpha,
			DeviceBuffer a, int lda, long strideA, DeviceBuffer b, int ldb, long strideB, double beta, DeviceBuffer c,
			int ldc, long strideC, int batchCount, boolean batched) {
		String operation = precision(doubles) + (batched ? "gemmStridedBatched" : "gemm");
		checkNotNull(operation, "transA", transA);
		checkNotNull(operation, "transB", transB);
		checkDimension(operation, "m", m);
		checkDimension(operation, "n", n);
		checkDimension(operation, "k", k);
		int rowsA = (transA == Transpose.NONE) ? m : k;
		int colsA = (transA == Transpose.NONE) ? k : m;
		int rowsB = (transB == Transpose.NONE) ? k : n;
		int colsB = (transB == Transpose.NONE) ? n : k;
		checkLeading(operation, "lda", lda, rowsA);
		checkLeading(operation, "ldb", ldb, rowsB);
		checkLeading(operation, "ldc", ldc, m);
		if (batchCount < 1) {
			throw new IllegalArgumentException(operation + ": batchCount must be at least 1, was " + batchCount);
		}
		checkStride(operation, "strideA", strideA);
		checkStride(operation, "strideB", strideB);
		checkStride(operation, "strideC", strideC);
		int size = elementSize(doubles);
		long bytesA = span(operation, "A", matrix(rowsA, colsA, lda), strideA, batchCount, size);
		long bytesB = span(operation, "B", matrix(rowsB, colsB, ldb), strideB, batchCount, size);
		long bytesC = span(operation, "C", matrix(m, n, ldc), strideC, batchCount, size);
		enqueue(operation, (stream) -> new BlasCall.Gemm(doubles, transA, transB, m, n, k, alpha,
				operand(stream, a, bytesA, operation, "A"), lda, strideA, operand(stream, b, bytesB, operation, "B"),
				ldb, strideB, beta, operand(stream, c, bytesC, operation, "C"), ldc, strideC, batchCount, batched));
	}

	private void gemv(boolean doubles, Transpose trans, int m, int n, double alpha, DeviceBuffer a, int lda,
			DeviceBuffer x, int incx, double beta, DeviceBuffer y, int incy) {
		String operation = precision(doubles) + "gemv";
		checkNotNull(operation, "trans", trans);
		checkDimension(operation, "m", m);
		checkDimension(operation, "n", n);
		checkLeading(operation, "lda", lda, m);
		checkIncrement(operation, "incx", incx);
		checkIncrement(operation, "incy", incy);
		int size = elementSize(doubles);
		boolean none = trans == Transpose.NONE;
		long bytesA = span(operation, "A", matrix(m, n, lda), 0, 1, size);
		long bytesX = span(operation, "x", vector(none ? n : m, incx), 0, 1, size);
		long bytesY = span(operation, "y", vector(none ? m : n, incy), 0, 1, size);
		enqueue(operation,
				(stream) -> new BlasCall.Gemv(doubles, trans, m, n, alpha, operand(stream, a, bytesA, operation, "A"),
						lda, operand(stream, x, bytesX, operation, "x"), incx, beta,
						operand(stream, y, bytesY, operation, "y"), incy));
	}

	private void axpy(boolean doubles, int n, double alpha, DeviceBuffer x, int incx, DeviceBuffer y, int incy) {
		String operation = precision(doubles) + "axpy";
		checkDimension(operation, "n", n);
		checkIncrement(operation, "incx", incx);
		checkIncrement(operation, "incy", incy);
		int size = elementSize(doubles);
		long bytesX = span(operation, "x", vector(n, incx), 0, 1, size);
		long bytesY = span(operation, "y", vector(n, incy), 0, 1, size);
		enqueue(operation, (stream) -> new BlasCall.Axpy(doubles, n, alpha, operand(stream, x, bytesX, operation, "x"),
				incx, operand(stream, y, bytesY, operation, "y"), incy));
	}

	private void dot(boolean doubles, int n, DeviceBuffer x, int incx, DeviceBuffer y, int incy, DeviceBuffer result) {
		String operation = precision(doubles) + "dot";
		checkDimension(operation, "n", n);
		checkIncrement(operation, "incx", incx);
		checkIncrement(operation, "incy", incy);
		int size = elementSize(doubles);
		long bytesX = span(operation, "x", vector(n, incx), 0, 1, size);
		long bytesY = span(operation, "y", vector(n, incy), 0, 1, size);
		enqueue(operation, (stream) -> new BlasCall.Dot(doubles, n, operand(stream, x, bytesX, operation, "x"), incx,
				operand(stream, y, bytesY, operation, "y"), incy, operand(stream, result, size, operation, "result")));
	}

	/**
	 * Calls the library on the session's stream: the operands are resolved (and checked
	 * against the session's device) before the handle enqueues anything. A backend's
	 * refusal of the call (an injected fault, a device that failed) reaches the caller as
	 * a {@link BlasException} too, with the backend's error as its cause.
	 */
	private void enqueue(String operation, Function<LibraryStream, BlasCall> call) {
		try {
			this.session.callLibrary(this.library.streams(), operation,
					(handle, stream) -> handle.enqueue(call.apply(stream), this.mathMode, stream));
		}
		catch (BlasException ex) {
			throw ex;
		}
		catch (BackendException ex) {
			throw new BlasException(operation, -1, ex.getErrorName(), ex.getErrorText(), ex.getDeviceId(),
					ex.isSticky(), ex);
		}
	}

	private static NativeMemory operand(LibraryStream stream, DeviceBuffer buffer, long bytes, String operation,
			String name) {
		return stream.memory(buffer, 0, bytes, operation + "'s " + name);
	}

	private static String precision(boolean doubles) {
		return doubles ? "d" : "s";
	}

	private static int elementSize(boolean doubles) {
		return doubles ? Double.BYTES : Float.BYTES;
	}

	/** The elements a column-major matrix spans: none if it is empty. */
	static long matrix(int rows, int cols, int ld) {
		return (rows == 0 || cols == 0) ? 0 : (long) ld * (cols - 1) + rows;
	}

	static long vector(int n, int inc) {
		return (n == 0) ? 0 : 1 + (long) (n - 1) * inc;
	}

	/**
	 * The bytes an operand spans: {@code batchCount} matrices (or vectors) of
	 * {@code elements}, {@code stride} elements apart; refused, naming the operand, where
	 * that does not fit in a {@code long} (a stride that wrapped would pass the buffer's
	 * bounds check and read elsewhere).
	 */
	static long span(String operation, String operand, long elements, long stride, int batchCount, int size) {
		if (elements == 0) {
			return 0;
		}
		try {
			return Math.multiplyExact(Math.addExact(Math.multiplyExact(stride, batchCount - 1L), elements), size);
		}
		catch (ArithmeticException ex) {
			throw new IllegalArgumentException(operation + ": " + operand + " would span more than 2^63 bytes ("
					+ elements + " elements"
					+ ((batchCount > 1) ? ", stride" + operand + " " + stride + ", batchCount " + batchCount : "")
					+ ")");
		}
	}

	private static void checkNotNull(String operation, String name, Object value) {
		if (value == null) {
			throw new IllegalArgumentException(operation + ": " + name + " must not be null");
		}
	}

	private static void checkDimension(String operation, String name, int value) {
		if (value < 0) {
			throw new IllegalArgumentException(operation + ": " + name + " must be at least 0, was " + value);
		}
	}

	private static void checkLeading(String operation, String name, int value, int rows) {
		if (value < Math.max(1, rows)) {
			throw new IllegalArgumentException(
					operation + ": " + name + " must be at least max(1, " + rows + ") (the stored rows), was " + value);
		}
	}

	private static void checkIncrement(String operation, String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(operation + ": " + name + " must be at least 1, was " + value);
		}
	}

	private static void checkStride(String operation, String name, long value) {
		if (value < 0) {
			throw new IllegalArgumentException(operation + ": " + name + " must be at least 0, was " + value);
		}
	}

	@Override
	public String toString() {
		return "Blas[session " + this.session.id() + ", " + this.mathMode + "]";
	}

}
