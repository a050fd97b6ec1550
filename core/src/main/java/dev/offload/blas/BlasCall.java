package dev.offload.blas;

import dev.offload.spi.NativeMemory;

/**
 * The BLAS operations as a handle runs them, checked and with their operands' memory:
 * {@code doubles} picks the double-precision routine; scalars are held as doubles (a
 * float converts exactly).
 */
sealed interface BlasCall {

	/** The routine's name without its precision's letter, as meters tag it. */
	String operation();

	boolean doubles();

	default String routine() {
		return (doubles() ? "d" : "s") + operation();
	}

	/**
	 * {@code C = alpha op(A) op(B) + beta C}, {@code batchCount} times at the strides.
	 */
	record Gemm(boolean doubles, Transpose transA, Transpose transB, int m, int n, int k, double alpha, NativeMemory a,
			int lda, long strideA, NativeMemory b, int ldb, long strideB, double beta, NativeMemory c, int ldc,
			long strideC, int batchCount, boolean batched) implements BlasCall {

		@Override
		public String operation() {
			return this.batched ? "gemmStridedBatched" : "gemm";
		}

	}

	/** {@code y = alpha op(A) x + beta y}. */
	record Gemv(boolean doubles, Transpose trans, int m, int n, double alpha, NativeMemory a, int lda, NativeMemory x,
			int incx, double beta, NativeMemory y, int incy) implements BlasCall {

		@Override
		public String operation() {
			return "gemv";
		}

	}

	/** {@code y = alpha x + y}. */
	record Axpy(boolean doubles, int n, double alpha, NativeMemory x, int incx, NativeMemory y,
			int incy) implements BlasCall {

		@Override
		public String operation() {
			return "axpy";
		}

	}

	/** {@code result[0] = x . y}, written to device memory. */
	record Dot(boolean doubles, int n, NativeMemory x, int incx, NativeMemory y, int incy,
			NativeMemory result) implements BlasCall {

		@Override
		public String operation() {
			return "dot";
		}

	}

}
