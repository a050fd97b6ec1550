package dev.offload.sample.risk;

/**
 * The Cholesky factor of a covariance, which may be singular (positive semi-definite): a
 * factor whose variance is explained by the others gets a zero column. {@code F} is at
 * most 512, so the {@code F^3 / 6} multiply-adds stay on the CPU.
 */
final class Cholesky {

	/** A pivot at most this, relative to the largest variance, counts as zero. */
	private static final double PIVOT_TOLERANCE = 1e-12;

	/** What a zero pivot's column may still hold, relative to the largest variance. */
	private static final double RESIDUAL_TOLERANCE = 1e-8;

	private Cholesky() {
	}

	/**
	 * Returns {@code L}, lower triangular with {@code L L^T = covariance}.
	 * @param covariance {@code F x F}, symmetric, column-major
	 * @param f the factors
	 * @return {@code L}, column-major, or {@code null} if the covariance is not positive
	 * semi-definite
	 */
	static double[] lower(double[] covariance, int f) {
		double scale = 0;
		for (int i = 0; i < f; i++) {
			scale = Math.max(scale, covariance[i + f * i]);
		}
		double[] l = new double[f * f];
		for (int j = 0; j < f; j++) {
			double pivot = covariance[j + f * j];
			for (int k = 0; k < j; k++) {
				pivot -= l[j + f * k] * l[j + f * k];
			}
			if (pivot < -PIVOT_TOLERANCE * scale - Double.MIN_NORMAL) {
				return null;
			}
			boolean zero = pivot <= PIVOT_TOLERANCE * scale;
			double diagonal = zero ? 0 : Math.sqrt(pivot);
			l[j + f * j] = diagonal;
			for (int i = j + 1; i < f; i++) {
				double value = covariance[i + f * j];
				for (int k = 0; k < j; k++) {
					value -= l[i + f * k] * l[j + f * k];
				}
				if (zero) {
					// A factor without variance of its own cannot covary with another.
					if (Math.abs(value) > RESIDUAL_TOLERANCE * scale) {
						return null;
					}
				}
				else {
					l[i + f * j] = value / diagonal;
				}
			}
		}
		return l;
	}

}
