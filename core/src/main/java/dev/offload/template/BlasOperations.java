package dev.offload.template;

import java.lang.reflect.Array;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.OffloadSession;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.MathMode;
import dev.offload.blas.Transpose;

/**
 * BLAS with host arrays in and out, through an {@link OffloadTemplate}: each call joins
 * the session bound to the thread (an {@code @Offload} method's) or opens its own,
 * uploads its operands, runs the cuBLAS routine (or its host emulation), and returns the
 * result once it is done. <pre>{@code
 * float[] c = template.blas().sgemm(Transpose.NONE, Transpose.NONE, m, n, k, 1f, a, b);
 * float dot = template.blas().sdot(x, y);
 * }</pre> Matrices are column-major arrays without padding (the leading dimension is the
 * stored rows), as cuBLAS stores them; for device buffers that stay on the device,
 * leading dimensions or batches, use {@link Blas} on a session. A call reserves the
 * memory of its operands in the device's budget once, before it allocates them, and
 * closes them when done, so that the next call in a bound session draws that memory.
 */
public final class BlasOperations {

	/**
	 * The longest Java array the JVMs allocate: a few below {@code Integer.MAX_VALUE}.
	 */
	private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

	private final OffloadTemplate template;

	private final BlasLibrary library;

	private final MathMode mathMode;

	BlasOperations(OffloadTemplate template, BlasLibrary library, MathMode mathMode) {
		this.template = template;
		this.library = library;
		this.mathMode = mathMode;
	}

	/**
	 * Returns these operations with another math mode.
	 * @param mode the mode (TF32 tensor cores for single precision, or pedantic)
	 * @return the operations in that mode
	 */
	public BlasOperations withMathMode(MathMode mode) {
		return new BlasOperations(this.template, this.library, Objects.requireNonNull(mode, "mode must not be null"));
	}

	/**
	 * Returns {@code alpha op(A) op(B)}, of {@code m x n}, in single precision.
	 * @param transA whether {@code A} is used transposed (then stored {@code k x m})
	 * @param transB whether {@code B} is used transposed (then stored {@code n x k})
	 * @param m the rows of the result
	 * @param n the columns of the result
	 * @param k the inner dimension
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * k} floats
	 * @param b {@code B}, column-major, {@code k * n} floats
	 * @return the product, column-major, {@code m * n} floats
	 */
	public float[] sgemm(Transpose transA, Transpose transB, int m, int n, int k, float alpha, float[] a, float[] b) {
		return sgemm(transA, transB, m, n, k, alpha, a, b, 0, new float[checkGemm(transA, transB, m, n, k, a, b)]);
	}

	/**
	 * Returns {@code alpha op(A) op(B) + beta C} in single precision; {@code c} is not
	 * changed.
	 * @param transA whether {@code A} is used transposed (then stored {@code k x m})
	 * @param transB whether {@code B} is used transposed (then stored {@code n x k})
	 * @param m the rows of {@code C}
	 * @param n the columns of {@code C}
	 * @param k the inner dimension
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * k} floats
	 * @param b {@code B}, column-major, {@code k * n} floats
	 * @param beta {@code C}'s factor
	 * @param c {@code C}, column-major, {@code m * n} floats
	 * @return the result, column-major, {@code m * n} floats
	 */
	public float[] sgemm(Transpose transA, Transpose transB, int m, int n, int k, float alpha, float[] a, float[] b,
			float beta, float[] c) {
		checkGemm(transA, transB, m, n, k, a, b, c);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Float.BYTES, a.length, b.length, c.length);
			try (DeviceBuffer da = flow.upload(a); DeviceBuffer db = flow.upload(b); DeviceBuffer dc = flow.upload(c)) {
				blas(session).sgemm(transA, transB, m, n, k, alpha, da, rows(transA, m, k), db, rows(transB, k, n),
						beta, dc, Math.max(1, m));
				return flow.downloadFloats(dc, c.length);
			}
		});
	}

	/**
	 * Returns {@code alpha op(A) op(B)}, of {@code m x n}, in double precision.
	 * @param transA whether {@code A} is used transposed
	 * @param transB whether {@code B} is used transposed
	 * @param m the rows of the result
	 * @param n the columns of the result
	 * @param k the inner dimension
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * k} doubles
	 * @param b {@code B}, column-major, {@code k * n} doubles
	 * @return the product, column-major, {@code m * n} doubles
	 */
	public double[] dgemm(Transpose transA, Transpose transB, int m, int n, int k, double alpha, double[] a,
			double[] b) {
		return dgemm(transA, transB, m, n, k, alpha, a, b, 0, new double[checkGemm(transA, transB, m, n, k, a, b)]);
	}

	/**
	 * Returns {@code alpha op(A) op(B) + beta C} in double precision; {@code c} is not
	 * changed.
	 * @param transA whether {@code A} is used transposed
	 * @param transB whether {@code B} is used transposed
	 * @param m the rows of {@code C}
	 * @param n the columns of {@code C}
	 * @param k the inner dimension
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * k} doubles
	 * @param b {@code B}, column-major, {@code k * n} doubles
	 * @param beta {@code C}'s factor
	 * @param c {@code C}, column-major, {@code m * n} doubles
	 * @return the result, column-major, {@code m * n} doubles
	 */
	public double[] dgemm(Transpose transA, Transpose transB, int m, int n, int k, double alpha, double[] a, double[] b,
			double beta, double[] c) {
		checkGemm(transA, transB, m, n, k, a, b, c);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Double.BYTES, a.length, b.length, c.length);
			try (DeviceBuffer da = flow.upload(a); DeviceBuffer db = flow.upload(b); DeviceBuffer dc = flow.upload(c)) {
				blas(session).dgemm(transA, transB, m, n, k, alpha, da, rows(transA, m, k), db, rows(transB, k, n),
						beta, dc, Math.max(1, m));
				return flow.downloadDoubles(dc, c.length);
			}
		});
	}

	/**
	 * Returns {@code alpha op(A) x} in single precision, {@code A} stored {@code m x n}.
	 * @param trans whether {@code A} is used transposed
	 * @param m {@code A}'s stored rows
	 * @param n {@code A}'s stored columns
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * n} floats
	 * @param x {@code n} floats ({@code m} transposed)
	 * @return {@code m} floats ({@code n} transposed)
	 */
	public float[] sgemv(Transpose trans, int m, int n, float alpha, float[] a, float[] x) {
		int rows = checkGemv(trans, m, n, a, x);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Float.BYTES, a.length, x.length, rows);
			try (DeviceBuffer da = flow.upload(a);
					DeviceBuffer dx = flow.upload(x);
					DeviceBuffer dy = flow.allocateFloats(Math.max(1, rows))) {
				blas(session).sgemv(trans, m, n, alpha, da, Math.max(1, m), dx, 1, 0, dy, 1);
				return flow.downloadFloats(dy, rows);
			}
		});
	}

	/**
	 * Returns {@code alpha op(A) x} in double precision, {@code A} stored {@code m x n}.
	 * @param trans whether {@code A} is used transposed
	 * @param m {@code A}'s stored rows
	 * @param n {@code A}'s stored columns
	 * @param alpha the product's factor
	 * @param a {@code A}, column-major, {@code m * n} doubles
	 * @param x {@code n} doubles ({@code m} transposed)
	 * @return {@code m} doubles ({@code n} transposed)
	 */
	public double[] dgemv(Transpose trans, int m, int n, double alpha, double[] a, double[] x) {
		int rows = checkGemv(trans, m, n, a, x);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Double.BYTES, a.length, x.length, rows);
			try (DeviceBuffer da = flow.upload(a);
					DeviceBuffer dx = flow.upload(x);
					DeviceBuffer dy = flow.allocateDoubles(Math.max(1, rows))) {
				blas(session).dgemv(trans, m, n, alpha, da, Math.max(1, m), dx, 1, 0, dy, 1);
				return flow.downloadDoubles(dy, rows);
			}
		});
	}

	/**
	 * Returns {@code alpha x + y} in single precision; {@code y} is not changed.
	 * @param alpha {@code x}'s factor
	 * @param x the floats
	 * @param y as many floats
	 * @return the sum
	 */
	public float[] saxpy(float alpha, float[] x, float[] y) {
		checkSameLength(x, y);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Float.BYTES, x.length, y.length, 0);
			try (DeviceBuffer dx = flow.upload(x); DeviceBuffer dy = flow.upload(y)) {
				blas(session).saxpy(x.length, alpha, dx, 1, dy, 1);
				return flow.downloadFloats(dy, y.length);
			}
		});
	}

	/**
	 * Returns {@code alpha x + y} in double precision; {@code y} is not changed.
	 * @param alpha {@code x}'s factor
	 * @param x the doubles
	 * @param y as many doubles
	 * @return the sum
	 */
	public double[] daxpy(double alpha, double[] x, double[] y) {
		checkSameLength(x, y);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Double.BYTES, x.length, y.length, 0);
			try (DeviceBuffer dx = flow.upload(x); DeviceBuffer dy = flow.upload(y)) {
				blas(session).daxpy(x.length, alpha, dx, 1, dy, 1);
				return flow.downloadDoubles(dy, y.length);
			}
		});
	}

	/**
	 * Returns the dot product of two float vectors.
	 * @param x the floats
	 * @param y as many floats
	 * @return {@code x . y}
	 */
	public float sdot(float[] x, float[] y) {
		checkSameLength(x, y);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Float.BYTES, x.length, y.length, 1);
			try (DeviceBuffer dx = flow.upload(x);
					DeviceBuffer dy = flow.upload(y);
					DeviceBuffer result = flow.allocateFloats(1)) {
				blas(session).sdot(x.length, dx, 1, dy, 1, result);
				return flow.downloadFloats(result, 1)[0];
			}
		});
	}

	/**
	 * Returns the dot product of two double vectors.
	 * @param x the doubles
	 * @param y as many doubles
	 * @return {@code x . y}
	 */
	public double ddot(double[] x, double[] y) {
		checkSameLength(x, y);
		return this.template.execute((session) -> {
			Flow flow = reserve(session, Double.BYTES, x.length, y.length, 1);
			try (DeviceBuffer dx = flow.upload(x);
					DeviceBuffer dy = flow.upload(y);
					DeviceBuffer result = flow.allocateDoubles(1)) {
				blas(session).ddot(x.length, dx, 1, dy, 1, result);
				return flow.downloadDoubles(result, 1)[0];
			}
		});
	}

	private Blas blas(OffloadSession session) {
		return this.library.on(session).withMathMode(this.mathMode);
	}

	/**
	 * Reserves the operands' device memory once (each buffer's allocation size), so that
	 * the uploads do not wait for the budget one by one.
	 */
	private static Flow reserve(OffloadSession session, int elementSize, int... lengths) {
		long bytes = 0;
		for (int length : lengths) {
			if (length > 0) {
				bytes += Device.allocationSize((long) length * elementSize);
			}
		}
		session.reserveMemory(bytes);
		return Flow.of(session);
	}

	private static int rows(Transpose trans, int rows, int cols) {
		return Math.max(1, (trans == Transpose.NONE) ? rows : cols);
	}

	/**
	 * Checks a product's operands.
	 * @return the length of its result, {@code m * n}
	 */
	private static int checkGemm(Transpose transA, Transpose transB, int m, int n, int k, @Nullable Object a,
			@Nullable Object b) {
		if (transA == null || transB == null) {
			throw new IllegalArgumentException("gemm: transA and transB must not be null");
		}
		if (m < 1 || n < 1 || k < 1) {
			throw new IllegalArgumentException("gemm: m, n and k must be at least 1, were " + m + ", " + n + ", " + k);
		}
		checkLength("A", a, (long) m * k);
		checkLength("B", b, (long) k * n);
		long result = (long) m * n;
		if (result > MAX_ARRAY_LENGTH) {
			throw new IllegalArgumentException("gemm: the result of " + m + " x " + n + " = " + result
					+ " elements is larger than a Java array (at most " + MAX_ARRAY_LENGTH + ")");
		}
		return (int) result;
	}

	private static void checkGemm(Transpose transA, Transpose transB, int m, int n, int k, @Nullable Object a,
			@Nullable Object b, @Nullable Object c) {
		checkLength("C", c, checkGemm(transA, transB, m, n, k, a, b));
	}

	private static int checkGemv(Transpose trans, int m, int n, @Nullable Object a, @Nullable Object x) {
		if (trans == null) {
			throw new IllegalArgumentException("gemv: trans must not be null");
		}
		if (m < 1 || n < 1) {
			throw new IllegalArgumentException("gemv: m and n must be at least 1, were " + m + ", " + n);
		}
		checkLength("A", a, (long) m * n);
		checkLength("x", x, (trans == Transpose.NONE) ? n : m);
		return (trans == Transpose.NONE) ? m : n;
	}

	private static void checkLength(String operand, @Nullable Object array, long expected) {
		int length = length(operand, array);
		if (length != expected) {
			throw new IllegalArgumentException(
					operand + " must hold " + expected + " elements for these dimensions, held " + length);
		}
	}

	private static void checkSameLength(@Nullable Object x, @Nullable Object y) {
		int xLength = length("x", x);
		int yLength = length("y", y);
		if (xLength != yLength || xLength < 1) {
			throw new IllegalArgumentException(
					"x and y must hold the same number of elements, at least 1; held " + xLength + " and " + yLength);
		}
	}

	/** The length of an operand, a {@code float[]} or a {@code double[]}. */
	private static int length(String operand, @Nullable Object array) {
		if (array == null) {
			throw new IllegalArgumentException(operand + " must not be null");
		}
		return Array.getLength(array);
	}

	@Override
	public String toString() {
		return "BlasOperations[" + this.library + ", " + this.mathMode + "]";
	}

}
