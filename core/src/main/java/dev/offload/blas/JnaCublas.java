package dev.offload.blas;

import java.util.List;
import java.util.Map;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import org.jspecify.annotations.Nullable;

import dev.offload.internal.blas.CublasBinding;
import dev.offload.internal.blas.CublasStatus;

/**
 * {@link CublasBinding} through JNA, the binding of the JCuda backend: any
 * {@code libcublas} (CUDA 12, 13 or later) loads by soname with no native build, as NVRTC
 * does. Pointers go as {@code long}s (the 64-bit Linux the CUDA backend runs on passes
 * both in the same registers); host scalars through each handle's own native memory,
 * allocated with the handle, so that a call allocates no native memory. A call costs
 * about a microsecond more than from C, against the several microseconds cuBLAS itself
 * takes to enqueue. Only {@link CublasLoader} touches this class, once JNA is known to be
 * on the classpath.
 */
final class JnaCublas implements CublasBinding {

	/**
	 * {@code libraryPropertyType}: {@code MAJOR_VERSION}, {@code MINOR_VERSION},
	 * {@code PATCH_LEVEL}.
	 */
	private static final int MAJOR_VERSION = 0;

	private static final int MINOR_VERSION = 1;

	private static final int PATCH_LEVEL = 2;

	private final CublasLibrary library;

	private final String version;

	private JnaCublas(CublasLibrary library, String name) {
		this.library = library;
		IntByReference major = new IntByReference();
		IntByReference minor = new IntByReference();
		IntByReference patch = new IntByReference();
		// A library without cublasGetProperty is no cuBLAS: UnsatisfiedLinkError.
		library.cublasGetProperty(MAJOR_VERSION, major);
		library.cublasGetProperty(MINOR_VERSION, minor);
		library.cublasGetProperty(PATCH_LEVEL, patch);
		this.version = "cuBLAS " + major.getValue() + "." + minor.getValue() + "." + patch.getValue() + " (" + name
				+ ")";
	}

	/**
	 * Loads cuBLAS from the first library of {@code candidates} that loads.
	 * @param candidates sonames or paths, in order
	 * @param attempts receives each failed candidate with why it failed
	 * @return the binding, or {@code null} if none loaded
	 */
	static @Nullable JnaCublas open(List<String> candidates, Map<String, String> attempts) {
		for (String candidate : candidates) {
			try {
				return new JnaCublas(Native.load(candidate, CublasLibrary.class), candidate);
			}
			catch (UnsatisfiedLinkError ex) {
				attempts.put(candidate, reason(ex));
			}
		}
		return null;
	}

	/**
	 * The loader's own reason (e.g. "cannot open shared object file"), without JNA's
	 * preamble and repeats.
	 */
	private static String reason(UnsatisfiedLinkError error) {
		List<String> lines = String.valueOf(error.getMessage())
			.lines()
			.map(String::strip)
			.filter((line) -> !line.isEmpty() && !line.startsWith("Unable to load library")
					&& !line.startsWith("Native library ("))
			.distinct()
			.toList();
		return lines.isEmpty() ? String.valueOf(error.getMessage()).strip() : String.join("; ", lines);
	}

	@Override
	public String version() {
		return this.version;
	}

	@Override
	public int create(long[] handle) {
		LongByReference created = new LongByReference();
		int status = this.library.cublasCreate_v2(created);
		handle[0] = created.getValue();
		return status;
	}

	@Override
	public CublasBinding.Handle handle(long handle) {
		return new Handle(this.library, handle);
	}

	@Override
	public String statusName(int status) {
		try {
			return this.library.cublasGetStatusName(status);
		}
		catch (UnsatisfiedLinkError ex) {
			return CublasStatus.name(status);
		}
	}

	@Override
	public String statusText(int status) {
		try {
			return this.library.cublasGetStatusString(status);
		}
		catch (UnsatisfiedLinkError ex) {
			return "";
		}
	}

	/**
	 * The calls on one handle: {@code alpha} at the start of {@link #scalars} and
	 * {@code beta} 8 bytes on, written before each call, which JNA passes as pointers
	 * without copying anything.
	 */
	private static final class Handle implements CublasBinding.Handle {

		private static final int BETA_OFFSET = 8;

		private static final long SCALAR_BLOCK = 128;

		private final CublasLibrary library;

		private final long handle;

		/**
		 * Written by every call: aligned to, and alone in, a block of two cache lines, so
		 * that the handles made one after another do not pass lines between the threads
		 * calling on them.
		 */
		private final Memory scalars = new Memory(2 * SCALAR_BLOCK).align((int) SCALAR_BLOCK);

		private final Pointer alpha = this.scalars;

		private final Pointer beta = this.scalars.share(BETA_OFFSET);

		Handle(CublasLibrary library, long handle) {
			this.library = library;
			this.handle = handle;
		}

		@Override
		public long address() {
			return this.handle;
		}

		@Override
		public int destroy() {
			try {
				return this.library.cublasDestroy_v2(this.handle);
			}
			finally {
				this.scalars.close();
			}
		}

		@Override
		public int setStream(long stream) {
			return this.library.cublasSetStream_v2(this.handle, stream);
		}

		@Override
		public int setWorkspace(long workspace, long bytes) {
			return this.library.cublasSetWorkspace_v2(this.handle, workspace, bytes);
		}

		@Override
		public int setMathMode(int mode) {
			return this.library.cublasSetMathMode(this.handle, mode);
		}

		@Override
		public int setPointerMode(int mode) {
			return this.library.cublasSetPointerMode_v2(this.handle, mode);
		}

		private void floats(float alpha, float beta) {
			this.scalars.setFloat(0, alpha);
			this.scalars.setFloat(BETA_OFFSET, beta);
		}

		private void doubles(double alpha, double beta) {
			this.scalars.setDouble(0, alpha);
			this.scalars.setDouble(BETA_OFFSET, beta);
		}

		@Override
		public int sgemm(int transA, int transB, int m, int n, int k, float alpha, long a, int lda, long b, int ldb,
				float beta, long c, int ldc) {
			floats(alpha, beta);
			return this.library.cublasSgemm_v2(this.handle, transA, transB, m, n, k, this.alpha, a, lda, b, ldb,
					this.beta, c, ldc);
		}

		@Override
		public int dgemm(int transA, int transB, int m, int n, int k, double alpha, long a, int lda, long b, int ldb,
				double beta, long c, int ldc) {
			doubles(alpha, beta);
			return this.library.cublasDgemm_v2(this.handle, transA, transB, m, n, k, this.alpha, a, lda, b, ldb,
					this.beta, c, ldc);
		}

		@Override
		public int sgemmStridedBatched(int transA, int transB, int m, int n, int k, float alpha, long a, int lda,
				long strideA, long b, int ldb, long strideB, float beta, long c, int ldc, long strideC,
				int batchCount) {
			floats(alpha, beta);
			return this.library.cublasSgemmStridedBatched(this.handle, transA, transB, m, n, k, this.alpha, a, lda,
					strideA, b, ldb, strideB, this.beta, c, ldc, strideC, batchCount);
		}

		@Override
		public int dgemmStridedBatched(int transA, int transB, int m, int n, int k, double alpha, long a, int lda,
				long strideA, long b, int ldb, long strideB, double beta, long c, int ldc, long strideC,
				int batchCount) {
			doubles(alpha, beta);
			return this.library.cublasDgemmStridedBatched(this.handle, transA, transB, m, n, k, this.alpha, a, lda,
					strideA, b, ldb, strideB, this.beta, c, ldc, strideC, batchCount);
		}

		@Override
		public int sgemv(int trans, int m, int n, float alpha, long a, int lda, long x, int incx, float beta, long y,
				int incy) {
			floats(alpha, beta);
			return this.library.cublasSgemv_v2(this.handle, trans, m, n, this.alpha, a, lda, x, incx, this.beta, y,
					incy);
		}

		@Override
		public int dgemv(int trans, int m, int n, double alpha, long a, int lda, long x, int incx, double beta, long y,
				int incy) {
			doubles(alpha, beta);
			return this.library.cublasDgemv_v2(this.handle, trans, m, n, this.alpha, a, lda, x, incx, this.beta, y,
					incy);
		}

		@Override
		public int saxpy(int n, float alpha, long x, int incx, long y, int incy) {
			this.scalars.setFloat(0, alpha);
			return this.library.cublasSaxpy_v2(this.handle, n, this.alpha, x, incx, y, incy);
		}

		@Override
		public int daxpy(int n, double alpha, long x, int incx, long y, int incy) {
			this.scalars.setDouble(0, alpha);
			return this.library.cublasDaxpy_v2(this.handle, n, this.alpha, x, incx, y, incy);
		}

		@Override
		public int sdot(int n, long x, int incx, long y, int incy, long result) {
			return this.library.cublasSdot_v2(this.handle, n, x, incx, y, incy, result);
		}

		@Override
		public int ddot(int n, long x, int incx, long y, int incy, long result) {
			return this.library.cublasDdot_v2(this.handle, n, x, incx, y, incy, result);
		}

	}

	/**
	 * The cuBLAS functions Offload calls ({@code cublas_api.h}, v2 API). Handles, streams
	 * and device pointers are 64-bit values; {@code long long} and {@code size_t} too.
	 */
	interface CublasLibrary extends Library {

		int cublasGetProperty(int type, IntByReference value);

		int cublasCreate_v2(LongByReference handle);

		int cublasDestroy_v2(long handle);

		int cublasSetStream_v2(long handle, long stream);

		int cublasSetWorkspace_v2(long handle, long workspace, long workspaceSizeInBytes);

		int cublasSetMathMode(long handle, int mode);

		int cublasSetPointerMode_v2(long handle, int mode);

		int cublasSgemm_v2(long handle, int transa, int transb, int m, int n, int k, Pointer alpha, long a, int lda,
				long b, int ldb, Pointer beta, long c, int ldc);

		int cublasDgemm_v2(long handle, int transa, int transb, int m, int n, int k, Pointer alpha, long a, int lda,
				long b, int ldb, Pointer beta, long c, int ldc);

		int cublasSgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, Pointer alpha, long a,
				int lda, long strideA, long b, int ldb, long strideB, Pointer beta, long c, int ldc, long strideC,
				int batchCount);

		int cublasDgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, Pointer alpha, long a,
				int lda, long strideA, long b, int ldb, long strideB, Pointer beta, long c, int ldc, long strideC,
				int batchCount);

		int cublasSgemv_v2(long handle, int trans, int m, int n, Pointer alpha, long a, int lda, long x, int incx,
				Pointer beta, long y, int incy);

		int cublasDgemv_v2(long handle, int trans, int m, int n, Pointer alpha, long a, int lda, long x, int incx,
				Pointer beta, long y, int incy);

		int cublasSaxpy_v2(long handle, int n, Pointer alpha, long x, int incx, long y, int incy);

		int cublasDaxpy_v2(long handle, int n, Pointer alpha, long x, int incx, long y, int incy);

		int cublasSdot_v2(long handle, int n, long x, int incx, long y, int incy, long result);

		int cublasDdot_v2(long handle, int n, long x, int incx, long y, int incy, long result);

		String cublasGetStatusName(int status);

		String cublasGetStatusString(int status);

	}

}
