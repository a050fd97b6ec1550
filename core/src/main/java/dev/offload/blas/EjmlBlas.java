package dev.offload.blas;

import java.nio.ByteBuffer;
import java.util.Objects;

import org.ejml.data.DMatrixRMaj;
import org.ejml.data.FMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.CommonOps_FDRM;
import org.ejml.dense.row.mult.MatrixVectorMult_DDRM;
import org.ejml.dense.row.mult.MatrixVectorMult_FDRM;
import org.ejml.dense.row.mult.VectorVectorMult_DDRM;
import org.ejml.dense.row.mult.VectorVectorMult_FDRM;

import dev.offload.spi.NativeMemory;

/**
 * The BLAS operations on the host, on column-major matrices in little-endian host views:
 * operands are gathered into EJML's dense row-major matrices (applying the transposes and
 * leading dimensions), multiplied by EJML, and the result scattered back. Single
 * precision accumulates in floats, as cuBLAS does, so results agree within rounding. Only
 * {@link EmulatedBlas} calls it, after checking that EJML is on the classpath.
 */
final class EjmlBlas {

	private static final int F = Float.BYTES;

	private static final int D = Double.BYTES;

	private EjmlBlas() {
	}

	static void run(BlasCall call) {
		if (call instanceof BlasCall.Gemm gemm) {
			if (gemm.doubles()) {
				gemmD(gemm);
			}
			else {
				gemmF(gemm);
			}
		}
		else if (call instanceof BlasCall.Gemv gemv) {
			if (gemv.doubles()) {
				gemvD(gemv);
			}
			else {
				gemvF(gemv);
			}
		}
		else if (call instanceof BlasCall.Axpy axpy) {
			if (axpy.doubles()) {
				axpyD(axpy);
			}
			else {
				axpyF(axpy);
			}
		}
		else {
			BlasCall.Dot dot = (BlasCall.Dot) call;
			if (dot.doubles()) {
				dotD(dot);
			}
			else {
				dotF(dot);
			}
		}
	}

	private static ByteBuffer view(NativeMemory memory) {
		return Objects.requireNonNull(memory.hostView(), "the host emulation's memory has a host view");
	}

	private static void gemmF(BlasCall.Gemm call) {
		ByteBuffer a = view(call.a());
		ByteBuffer b = view(call.b());
		ByteBuffer c = view(call.c());
		int m = call.m();
		int n = call.n();
		int k = call.k();
		float alpha = (float) call.alpha();
		float beta = (float) call.beta();
		for (int batch = 0; batch < call.batchCount(); batch++) {
			FMatrixRMaj product = new FMatrixRMaj(m, n);
			if (k > 0 && alpha != 0) {
				FMatrixRMaj opA = readF(a, batch * call.strideA(), call.lda(), call.transA(), m, k);
				FMatrixRMaj opB = readF(b, batch * call.strideB(), call.ldb(), call.transB(), k, n);
				CommonOps_FDRM.mult(alpha, opA, opB, product);
			}
			long baseC = batch * call.strideC();
			for (int j = 0; j < n; j++) {
				for (int i = 0; i < m; i++) {
					int at = F * (int) (baseC + i + (long) j * call.ldc());
					// As BLAS: with beta 0, C is written without being read (it may hold
					// NaN).
					float value = product.get(i, j) + ((beta != 0) ? beta * c.getFloat(at) : 0);
					c.putFloat(at, value);
				}
			}
		}
	}

	private static void gemvF(BlasCall.Gemv call) {
		if (call.m() == 0 || call.n() == 0) {
			// As the reference BLAS (and cuBLAS): an empty A leaves y as it is.
			return;
		}
		boolean none = call.trans() == Transpose.NONE;
		int rows = none ? call.m() : call.n();
		int cols = none ? call.n() : call.m();
		ByteBuffer x = view(call.x());
		ByteBuffer y = view(call.y());
		float alpha = (float) call.alpha();
		float beta = (float) call.beta();
		FMatrixRMaj product = new FMatrixRMaj(rows, 1);
		if (cols > 0 && alpha != 0) {
			FMatrixRMaj opA = readF(view(call.a()), 0, call.lda(), call.trans(), rows, cols);
			MatrixVectorMult_FDRM.mult(opA, vectorF(x, cols, call.incx()), product);
		}
		for (int i = 0; i < rows; i++) {
			int at = F * i * call.incy();
			y.putFloat(at, alpha * product.get(i, 0) + ((beta != 0) ? beta * y.getFloat(at) : 0));
		}
	}

	private static void axpyF(BlasCall.Axpy call) {
		ByteBuffer x = view(call.x());
		ByteBuffer y = view(call.y());
		float alpha = (float) call.alpha();
		if (alpha == 0) {
			// As the reference BLAS: x is not read, so a NaN in it leaves y as it is.
			return;
		}
		for (int i = 0; i < call.n(); i++) {
			int at = F * i * call.incy();
			y.putFloat(at, alpha * x.getFloat(F * i * call.incx()) + y.getFloat(at));
		}
	}

	private static void dotF(BlasCall.Dot call) {
		float result = (call.n() > 0) ? VectorVectorMult_FDRM.innerProd(vectorF(view(call.x()), call.n(), call.incx()),
				vectorF(view(call.y()), call.n(), call.incy())) : 0;
		view(call.result()).putFloat(0, result);
	}

	/**
	 * Reads op(X) as a dense row-major {@code rows x cols} matrix from column-major
	 * storage: X itself ({@code rows x cols}) or, transposed, X of {@code cols x rows}.
	 */
	private static FMatrixRMaj readF(ByteBuffer stored, long base, int ld, Transpose trans, int rows, int cols) {
		FMatrixRMaj matrix = new FMatrixRMaj(rows, cols);
		boolean none = trans == Transpose.NONE;
		for (int i = 0; i < rows; i++) {
			for (int j = 0; j < cols; j++) {
				long index = base + (none ? i + (long) j * ld : j + (long) i * ld);
				matrix.data[i * cols + j] = stored.getFloat(F * (int) index);
			}
		}
		return matrix;
	}

	private static FMatrixRMaj vectorF(ByteBuffer stored, int n, int inc) {
		FMatrixRMaj vector = new FMatrixRMaj(n, 1);
		for (int i = 0; i < n; i++) {
			vector.data[i] = stored.getFloat(F * i * inc);
		}
		return vector;
	}

	private static void gemmD(BlasCall.Gemm call) {
		ByteBuffer a = view(call.a());
		ByteBuffer b = view(call.b());
		ByteBuffer c = view(call.c());
		int m = call.m();
		int n = call.n();
		int k = call.k();
		double alpha = call.alpha();
		double beta = call.beta();
		for (int batch = 0; batch < call.batchCount(); batch++) {
			DMatrixRMaj product = new DMatrixRMaj(m, n);
			if (k > 0 && alpha != 0) {
				DMatrixRMaj opA = readD(a, batch * call.strideA(), call.lda(), call.transA(), m, k);
				DMatrixRMaj opB = readD(b, batch * call.strideB(), call.ldb(), call.transB(), k, n);
				CommonOps_DDRM.mult(alpha, opA, opB, product);
			}
			long baseC = batch * call.strideC();
			for (int j = 0; j < n; j++) {
				for (int i = 0; i < m; i++) {
					int at = D * (int) (baseC + i + (long) j * call.ldc());
					// As BLAS: with beta 0, C is written without being read (it may hold
					// NaN).
					double value = product.get(i, j) + ((beta != 0) ? beta * c.getDouble(at) : 0);
					c.putDouble(at, value);
				}
			}
		}
	}

	private static void gemvD(BlasCall.Gemv call) {
		if (call.m() == 0 || call.n() == 0) {
			// As the reference BLAS (and cuBLAS): an empty A leaves y as it is.
			return;
		}
		boolean none = call.trans() == Transpose.NONE;
		int rows = none ? call.m() : call.n();
		int cols = none ? call.n() : call.m();
		ByteBuffer x = view(call.x());
		ByteBuffer y = view(call.y());
		double alpha = call.alpha();
		double beta = call.beta();
		DMatrixRMaj product = new DMatrixRMaj(rows, 1);
		if (cols > 0 && alpha != 0) {
			DMatrixRMaj opA = readD(view(call.a()), 0, call.lda(), call.trans(), rows, cols);
			MatrixVectorMult_DDRM.mult(opA, vectorD(x, cols, call.incx()), product);
		}
		for (int i = 0; i < rows; i++) {
			int at = D * i * call.incy();
			y.putDouble(at, alpha * product.get(i, 0) + ((beta != 0) ? beta * y.getDouble(at) : 0));
		}
	}

	private static void axpyD(BlasCall.Axpy call) {
		ByteBuffer x = view(call.x());
		ByteBuffer y = view(call.y());
		double alpha = call.alpha();
		if (alpha == 0) {
			// As the reference BLAS: x is not read, so a NaN in it leaves y as it is.
			return;
		}
		for (int i = 0; i < call.n(); i++) {
			int at = D * i * call.incy();
			y.putDouble(at, alpha * x.getDouble(D * i * call.incx()) + y.getDouble(at));
		}
	}

	private static void dotD(BlasCall.Dot call) {
		double result = (call.n() > 0) ? VectorVectorMult_DDRM.innerProd(vectorD(view(call.x()), call.n(), call.incx()),
				vectorD(view(call.y()), call.n(), call.incy())) : 0;
		view(call.result()).putDouble(0, result);
	}

	/**
	 * Reads op(X) as a dense row-major {@code rows x cols} matrix from column-major
	 * storage: X itself ({@code rows x cols}) or, transposed, X of {@code cols x rows}.
	 */
	private static DMatrixRMaj readD(ByteBuffer stored, long base, int ld, Transpose trans, int rows, int cols) {
		DMatrixRMaj matrix = new DMatrixRMaj(rows, cols);
		boolean none = trans == Transpose.NONE;
		for (int i = 0; i < rows; i++) {
			for (int j = 0; j < cols; j++) {
				long index = base + (none ? i + (long) j * ld : j + (long) i * ld);
				matrix.data[i * cols + j] = stored.getDouble(D * (int) index);
			}
		}
		return matrix;
	}

	private static DMatrixRMaj vectorD(ByteBuffer stored, int n, int inc) {
		DMatrixRMaj vector = new DMatrixRMaj(n, 1);
		for (int i = 0; i < n; i++) {
			vector.data[i] = stored.getDouble(D * i * inc);
		}
		return vector;
	}

}
