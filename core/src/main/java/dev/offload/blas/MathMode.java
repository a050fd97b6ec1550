package dev.offload.blas;

/**
 * How cuBLAS may compute ({@code cublasMath_t}), set on a stream's handle before a call
 * that asks for another mode. The host emulation computes in full precision whatever the
 * mode.
 */
public enum MathMode {

	/**
	 * cuBLAS's default ({@code CUBLAS_DEFAULT_MATH}): full single and double precision;
	 * tensor cores where they keep it.
	 */
	DEFAULT(0),

	/**
	 * Single-precision routines may use TF32 tensor cores
	 * ({@code CUBLAS_TF32_TENSOR_OP_MATH}): several times faster on Ampere and later,
	 * with inputs rounded to a 10-bit mantissa (relative error about 1e-3).
	 */
	TF32(3),

	/**
	 * The prescribed precision and no reduced-precision shortcut
	 * ({@code CUBLAS_PEDANTIC_MATH}), for tests that compare results bit for bit across
	 * runs.
	 */
	PEDANTIC(2);

	private final int code;

	MathMode(int code) {
		this.code = code;
	}

	/** The value of {@code cublasMath_t}. */
	int code() {
		return this.code;
	}

}
