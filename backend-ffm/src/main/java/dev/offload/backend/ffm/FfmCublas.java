package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.blas.CublasBinding;
import dev.offload.internal.blas.CublasStatus;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * cuBLAS through the foreign function API, the binding of BLAS calls on this backend's
 * streams: {@code libcublas.so.13}, then {@code libcublas.so.12} by soname, or the
 * configured path ({@code offload.blas.library}); no JNA. Handles, streams, device
 * pointers and the scalars' host addresses go as {@code long}s, as in {@link Cu}.
 * <p>
 * Each handle keeps 16 bytes of native memory, allocated with it, where a call writes
 * {@code alpha} and {@code beta} before cuBLAS reads them (host pointer mode reads them
 * before the call returns), so that a call allocates nothing. Only the handle's state
 * setters ({@code cublasSetMathMode}, {@code cublasSetPointerMode_v2}) are linked as
 * critical: the routines may load their kernels on first use, take cuBLAS's locks or, for
 * a dot in host pointer mode, wait for the stream, and creating, destroying or rebinding
 * a handle may synchronize the device; a thread waiting there must not hold up the JVM's
 * safepoints.
 */
final class FfmCublas implements CublasBinding {

	/** The loader that this backend's streams offer. */
	static final CublasBinding.Loader LOADER = new Loader(NativeLibrary::load);

	private static final int MAJOR_VERSION = 0;

	private static final int MINOR_VERSION = 1;

	private static final int PATCH_LEVEL = 2;

	private static final int BETA_OFFSET = 8;

	private static final MemoryLayout[] GEMM = { JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG,
			JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT };

	private static final MemoryLayout[] GEMM_STRIDED_BATCHED = { JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
			JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
			JAVA_INT, JAVA_LONG, JAVA_INT };

	private static final MemoryLayout[] GEMV = { JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG,
			JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT };

	private static final MemoryLayout[] AXPY = { JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG,
			JAVA_INT };

	private static final MemoryLayout[] DOT = { JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT,
			JAVA_LONG };

	private final String version;

	private final MethodHandle create;

	private final MethodHandle destroy;

	private final MethodHandle setStream;

	private final MethodHandle setWorkspace;

	private final MethodHandle setMathMode;

	private final MethodHandle setPointerMode;

	private final MethodHandle sgemm;

	private final MethodHandle dgemm;

	private final MethodHandle sgemmStridedBatched;

	private final MethodHandle dgemmStridedBatched;

	private final MethodHandle sgemv;

	private final MethodHandle dgemv;

	private final MethodHandle saxpy;

	private final MethodHandle daxpy;

	private final MethodHandle sdot;

	private final MethodHandle ddot;

	private final @Nullable MethodHandle statusName;

	private final @Nullable MethodHandle statusText;

	private FfmCublas(SymbolLookup symbols, String name) throws Throwable {
		NativeLibrary library = new NativeLibrary(symbols);
		MethodHandle getProperty = blocking(library, "cublasGetProperty", JAVA_INT, JAVA_LONG);
		this.create = blocking(library, "cublasCreate_v2", JAVA_LONG);
		this.destroy = blocking(library, "cublasDestroy_v2", JAVA_LONG);
		this.setStream = blocking(library, "cublasSetStream_v2", JAVA_LONG, JAVA_LONG);
		this.setWorkspace = blocking(library, "cublasSetWorkspace_v2", JAVA_LONG, JAVA_LONG, JAVA_LONG);
		this.setMathMode = library.function("cublasSetMathMode", NativeLibrary.CRITICAL,
				FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
		this.setPointerMode = library.function("cublasSetPointerMode_v2", NativeLibrary.CRITICAL,
				FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
		this.sgemm = blocking(library, "cublasSgemm_v2", GEMM);
		this.dgemm = blocking(library, "cublasDgemm_v2", GEMM);
		this.sgemmStridedBatched = blocking(library, "cublasSgemmStridedBatched", GEMM_STRIDED_BATCHED);
		this.dgemmStridedBatched = blocking(library, "cublasDgemmStridedBatched", GEMM_STRIDED_BATCHED);
		this.sgemv = blocking(library, "cublasSgemv_v2", GEMV);
		this.dgemv = blocking(library, "cublasDgemv_v2", GEMV);
		this.saxpy = blocking(library, "cublasSaxpy_v2", AXPY);
		this.daxpy = blocking(library, "cublasDaxpy_v2", AXPY);
		this.sdot = blocking(library, "cublasSdot_v2", DOT);
		this.ddot = blocking(library, "cublasDdot_v2", DOT);
		this.statusName = library.optional("cublasGetStatusName", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
		this.statusText = library.optional("cublasGetStatusString", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
		library.requireAll("cuBLAS 12 or later");
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment value = arena.allocate(JAVA_INT);
			int[] parts = new int[3];
			int[] types = { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL };
			for (int i = 0; i < types.length; i++) {
				int status = (int) getProperty.invokeExact(types[i], value.address());
				parts[i] = (status == CublasStatus.SUCCESS) ? value.get(JAVA_INT, 0) : -1;
			}
			this.version = "cuBLAS " + parts[0] + "." + parts[1] + "." + parts[2] + " (" + name + ")";
		}
	}

	private static MethodHandle blocking(NativeLibrary library, String name, MemoryLayout... arguments) {
		return library.function(name, NativeLibrary.BLOCKING, FunctionDescriptor.of(JAVA_INT, arguments));
	}

	@Override
	public String version() {
		return this.version;
	}

	@Override
	public int create(long[] handle) {
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment created = arena.allocate(JAVA_LONG);
			int status = (int) this.create.invokeExact(created.address());
			handle[0] = created.get(JAVA_LONG, 0);
			return status;
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("cublasCreate_v2", ex);
		}
	}

	@Override
	public CublasBinding.Handle handle(long handle) {
		return new Handle(handle);
	}

	@Override
	public String statusName(int status) {
		MethodHandle function = this.statusName;
		if (function == null) {
			return CublasStatus.name(status);
		}
		try {
			return NativeLibrary.string((long) function.invokeExact(status), CublasStatus.name(status));
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("cublasGetStatusName", ex);
		}
	}

	@Override
	public String statusText(int status) {
		MethodHandle function = this.statusText;
		if (function == null) {
			return "";
		}
		try {
			return NativeLibrary.string((long) function.invokeExact(status), "");
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("cublasGetStatusString", ex);
		}
	}

	@Override
	public String toString() {
		return "FfmCublas[" + this.version + "]";
	}

	/**
	 * The calls on one handle, with its scalars' memory: {@code alpha} at its start,
	 * {@code beta} 8 bytes on. The arena is shared: the pool may destroy the handle on
	 * another thread than the one that created it.
	 */
	private final class Handle implements CublasBinding.Handle {

		private final long handle;

		private final Arena arena = Arena.ofShared();

		private final MemorySegment scalars = CacheLines.allocate(this.arena, 2L * Double.BYTES);

		private final long alpha = this.scalars.address();

		private final long beta = this.alpha + BETA_OFFSET;

		Handle(long handle) {
			this.handle = handle;
		}

		@Override
		public long address() {
			return this.handle;
		}

		@Override
		public int destroy() {
			try {
				return (int) FfmCublas.this.destroy.invokeExact(this.handle);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDestroy_v2", ex);
			}
			finally {
				this.arena.close();
			}
		}

		@Override
		public int setStream(long stream) {
			try {
				return (int) FfmCublas.this.setStream.invokeExact(this.handle, stream);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSetStream_v2", ex);
			}
		}

		@Override
		public int setWorkspace(long workspace, long bytes) {
			try {
				return (int) FfmCublas.this.setWorkspace.invokeExact(this.handle, workspace, bytes);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSetWorkspace_v2", ex);
			}
		}

		@Override
		public int setMathMode(int mode) {
			try {
				return (int) FfmCublas.this.setMathMode.invokeExact(this.handle, mode);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSetMathMode", ex);
			}
		}

		@Override
		public int setPointerMode(int mode) {
			try {
				return (int) FfmCublas.this.setPointerMode.invokeExact(this.handle, mode);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSetPointerMode_v2", ex);
			}
		}

		private void floats(float alpha, float beta) {
			this.scalars.set(JAVA_FLOAT, 0, alpha);
			this.scalars.set(JAVA_FLOAT, BETA_OFFSET, beta);
		}

		private void doubles(double alpha, double beta) {
			this.scalars.set(JAVA_DOUBLE, 0, alpha);
			this.scalars.set(JAVA_DOUBLE, BETA_OFFSET, beta);
		}

		@Override
		public int sgemm(int transA, int transB, int m, int n, int k, float alpha, long a, int lda, long b, int ldb,
				float beta, long c, int ldc) {
			floats(alpha, beta);
			try {
				return (int) FfmCublas.this.sgemm.invokeExact(this.handle, transA, transB, m, n, k, this.alpha, a, lda,
						b, ldb, this.beta, c, ldc);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSgemm_v2", ex);
			}
		}

		@Override
		public int dgemm(int transA, int transB, int m, int n, int k, double alpha, long a, int lda, long b, int ldb,
				double beta, long c, int ldc) {
			doubles(alpha, beta);
			try {
				return (int) FfmCublas.this.dgemm.invokeExact(this.handle, transA, transB, m, n, k, this.alpha, a, lda,
						b, ldb, this.beta, c, ldc);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDgemm_v2", ex);
			}
		}

		@Override
		public int sgemmStridedBatched(int transA, int transB, int m, int n, int k, float alpha, long a, int lda,
				long strideA, long b, int ldb, long strideB, float beta, long c, int ldc, long strideC,
				int batchCount) {
			floats(alpha, beta);
			try {
				return (int) FfmCublas.this.sgemmStridedBatched.invokeExact(this.handle, transA, transB, m, n, k,
						this.alpha, a, lda, strideA, b, ldb, strideB, this.beta, c, ldc, strideC, batchCount);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSgemmStridedBatched", ex);
			}
		}

		@Override
		public int dgemmStridedBatched(int transA, int transB, int m, int n, int k, double alpha, long a, int lda,
				long strideA, long b, int ldb, long strideB, double beta, long c, int ldc, long strideC,
				int batchCount) {
			doubles(alpha, beta);
			try {
				return (int) FfmCublas.this.dgemmStridedBatched.invokeExact(this.handle, transA, transB, m, n, k,
						this.alpha, a, lda, strideA, b, ldb, strideB, this.beta, c, ldc, strideC, batchCount);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDgemmStridedBatched", ex);
			}
		}

		@Override
		public int sgemv(int trans, int m, int n, float alpha, long a, int lda, long x, int incx, float beta, long y,
				int incy) {
			floats(alpha, beta);
			try {
				return (int) FfmCublas.this.sgemv.invokeExact(this.handle, trans, m, n, this.alpha, a, lda, x, incx,
						this.beta, y, incy);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSgemv_v2", ex);
			}
		}

		@Override
		public int dgemv(int trans, int m, int n, double alpha, long a, int lda, long x, int incx, double beta, long y,
				int incy) {
			doubles(alpha, beta);
			try {
				return (int) FfmCublas.this.dgemv.invokeExact(this.handle, trans, m, n, this.alpha, a, lda, x, incx,
						this.beta, y, incy);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDgemv_v2", ex);
			}
		}

		@Override
		public int saxpy(int n, float alpha, long x, int incx, long y, int incy) {
			this.scalars.set(JAVA_FLOAT, 0, alpha);
			try {
				return (int) FfmCublas.this.saxpy.invokeExact(this.handle, n, this.alpha, x, incx, y, incy);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSaxpy_v2", ex);
			}
		}

		@Override
		public int daxpy(int n, double alpha, long x, int incx, long y, int incy) {
			this.scalars.set(JAVA_DOUBLE, 0, alpha);
			try {
				return (int) FfmCublas.this.daxpy.invokeExact(this.handle, n, this.alpha, x, incx, y, incy);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDaxpy_v2", ex);
			}
		}

		@Override
		public int sdot(int n, long x, int incx, long y, int incy, long result) {
			try {
				return (int) FfmCublas.this.sdot.invokeExact(this.handle, n, x, incx, y, incy, result);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasSdot_v2", ex);
			}
		}

		@Override
		public int ddot(int n, long x, int incx, long y, int incy, long result) {
			try {
				return (int) FfmCublas.this.ddot.invokeExact(this.handle, n, x, incx, y, incy, result);
			}
			catch (Throwable ex) {
				throw NativeLibrary.linkFailure("cublasDdot_v2", ex);
			}
		}

	}

	/**
	 * Opens cuBLAS through this binding.
	 */
	static final class Loader implements CublasBinding.Loader {

		private final Function<String, SymbolLookup> opener;

		Loader(Function<String, SymbolLookup> opener) {
			this.opener = opener;
		}

		@Override
		public String name() {
			return FfmBackend.BINDING;
		}

		@Override
		public @Nullable CublasBinding open(List<String> candidates, Map<String, String> attempts) {
			// A configured library is a path, which the reason checks as one.
			return NativeLibrary.open(candidates, false, attempts, this.opener, FfmCublas::new);
		}

	}

}
