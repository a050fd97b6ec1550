package dev.offload.blas;

import java.util.SplittableRandom;

/**
 * Plain loops over column-major matrices, in double, that BLAS results are compared with,
 * independent of both cuBLAS and EJML.
 */
public final class BlasReference {

	private BlasReference() {
	}

	public static float[] randomFloats(int n, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		float[] values = new float[n];
		for (int i = 0; i < n; i++) {
			values[i] = (float) (random.nextDouble() * 2 - 1);
		}
		return values;
	}

	public static double[] randomDoubles(int n, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		double[] values = new double[n];
		for (int i = 0; i < n; i++) {
			values[i] = random.nextDouble() * 2 - 1;
		}
		return values;
	}

	/** Element (i, j) of op(X) from column-major storage. */
	public static double at(double[] x, long base, int ld, Transpose trans, int i, int j) {
		return (trans == Transpose.NONE) ? x[(int) (base + i + (long) j * ld)] : x[(int) (base + j + (long) i * ld)];
	}

	public static double[] gemm(Transpose ta, Transpose tb, int m, int n, int k, double alpha, double[] a, int lda,
			long sa, double[] b, int ldb, long sb, double beta, double[] c, int ldc, long sc, int batch) {
		double[] out = c.clone();
		for (int p = 0; p < batch; p++) {
			for (int i = 0; i < m; i++) {
				for (int j = 0; j < n; j++) {
					double sum = 0;
					for (int l = 0; l < k; l++) {
						sum += at(a, p * sa, lda, ta, i, l) * at(b, p * sb, ldb, tb, l, j);
					}
					int index = (int) (p * sc + i + (long) j * ldc);
					out[index] = alpha * sum + ((beta != 0) ? beta * c[index] : 0);
				}
			}
		}
		return out;
	}

	public static double[] gemv(Transpose trans, int m, int n, double alpha, double[] a, int lda, double[] x, int incx,
			double beta, double[] y, int incy) {
		int rows = (trans == Transpose.NONE) ? m : n;
		int cols = (trans == Transpose.NONE) ? n : m;
		double[] out = y.clone();
		for (int i = 0; i < rows; i++) {
			double sum = 0;
			for (int j = 0; j < cols; j++) {
				sum += at(a, 0, lda, trans, i, j) * x[j * incx];
			}
			out[i * incy] = alpha * sum + ((beta != 0) ? beta * y[i * incy] : 0);
		}
		return out;
	}

	public static double[] toDoubles(float[] values) {
		double[] doubles = new double[values.length];
		for (int i = 0; i < values.length; i++) {
			doubles[i] = values[i];
		}
		return doubles;
	}

	/**
	 * The largest difference relative to the scale of the expected values (their largest
	 * magnitude, at least 1).
	 */
	public static double relativeError(double[] expected, double[] actual) {
		double scale = 1;
		for (double each : expected) {
			scale = Math.max(scale, Math.abs(each));
		}
		double worst = 0;
		for (int i = 0; i < expected.length; i++) {
			worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
		}
		return worst / scale;
	}

}
