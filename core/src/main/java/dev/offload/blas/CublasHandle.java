package dev.offload.blas;

import dev.offload.BackendException;
import dev.offload.LibraryStream;
import dev.offload.internal.blas.CublasBinding;
import dev.offload.internal.blas.CublasStatus;
import dev.offload.spi.NativeMemory;

/**
 * A cuBLAS handle bound to one pooled stream: created, set to the stream and given its
 * workspace once ({@code cublasSetStream_v2} resets the workspace, so the workspace is
 * set after it), destroyed with the stream. The math mode is set only when a call asks
 * for another one than the handle has; scalars are host values
 * ({@code CUBLAS_POINTER_MODE_HOST}), except a dot's result, which cuBLAS writes to
 * device memory in device pointer mode, so that the call enqueues without waiting for the
 * stream.
 */
final class CublasHandle implements BlasHandle {

	private final CublasBinding binding;

	private final CublasBinding.Handle handle;

	private final int deviceId;

	private MathMode mathMode = MathMode.DEFAULT;

	private CublasHandle(CublasBinding binding, CublasBinding.Handle handle, int deviceId) {
		this.binding = binding;
		this.handle = handle;
		this.deviceId = deviceId;
	}

	/**
	 * Creates a handle on the stream, with {@code workspaceBytes} of workspace from the
	 * device's memory (0: none, cuBLAS then runs the algorithms that need none).
	 */
	static CublasHandle open(CublasBinding binding, LibraryStream stream, long workspaceBytes) {
		int deviceId = stream.device().id();
		stream.makeCurrent();
		long[] created = new long[1];
		check(binding, "cublasCreate_v2", binding.create(created), deviceId);
		CublasBinding.Handle handle = binding.handle(created[0]);
		try {
			check(binding, "cublasSetStream_v2", handle.setStream(stream.nativeAddress()), deviceId);
			if (workspaceBytes > 0) {
				NativeMemory workspace = stream.allocateWorkspace(workspaceBytes);
				check(binding, "cublasSetWorkspace_v2", handle.setWorkspace(workspace.nativeAddress(), workspaceBytes),
						deviceId);
			}
			else {
				check(binding, "cublasSetWorkspace_v2", handle.setWorkspace(0, 0), deviceId);
			}
		}
		catch (RuntimeException ex) {
			handle.destroy();
			throw ex;
		}
		return new CublasHandle(binding, handle, deviceId);
	}

	@Override
	public void enqueue(BlasCall call, MathMode mode, LibraryStream stream) {
		String routine = routine(call);
		stream.call(routine, () -> {
			if (mode != this.mathMode) {
				check(this.binding, "cublasSetMathMode", this.handle.setMathMode(mode.code()), this.deviceId);
				this.mathMode = mode;
			}
			int status = run(call);
			if (status != CublasStatus.SUCCESS) {
				throw error(routine, status, stream);
			}
		});
	}

	private int run(BlasCall call) {
		CublasBinding.Handle cublas = this.handle;
		if (call instanceof BlasCall.Gemm gemm) {
			long a = gemm.a().nativeAddress();
			long b = gemm.b().nativeAddress();
			long c = gemm.c().nativeAddress();
			int ta = gemm.transA().code();
			int tb = gemm.transB().code();
			if (gemm.batched()) {
				return gemm.doubles()
						? cublas.dgemmStridedBatched(ta, tb, gemm.m(), gemm.n(), gemm.k(), gemm.alpha(), a, gemm.lda(),
								gemm.strideA(), b, gemm.ldb(), gemm.strideB(), gemm.beta(), c, gemm.ldc(),
								gemm.strideC(), gemm.batchCount())
						: cublas.sgemmStridedBatched(ta, tb, gemm.m(), gemm.n(), gemm.k(), (float) gemm.alpha(), a,
								gemm.lda(), gemm.strideA(), b, gemm.ldb(), gemm.strideB(), (float) gemm.beta(), c,
								gemm.ldc(), gemm.strideC(), gemm.batchCount());
			}
			return gemm.doubles()
					? cublas.dgemm(ta, tb, gemm.m(), gemm.n(), gemm.k(), gemm.alpha(), a, gemm.lda(), b, gemm.ldb(),
							gemm.beta(), c, gemm.ldc())
					: cublas.sgemm(ta, tb, gemm.m(), gemm.n(), gemm.k(), (float) gemm.alpha(), a, gemm.lda(), b,
							gemm.ldb(), (float) gemm.beta(), c, gemm.ldc());
		}
		if (call instanceof BlasCall.Gemv gemv) {
			long a = gemv.a().nativeAddress();
			long x = gemv.x().nativeAddress();
			long y = gemv.y().nativeAddress();
			return gemv.doubles()
					? cublas.dgemv(gemv.trans().code(), gemv.m(), gemv.n(), gemv.alpha(), a, gemv.lda(), x, gemv.incx(),
							gemv.beta(), y, gemv.incy())
					: cublas.sgemv(gemv.trans().code(), gemv.m(), gemv.n(), (float) gemv.alpha(), a, gemv.lda(), x,
							gemv.incx(), (float) gemv.beta(), y, gemv.incy());
		}
		if (call instanceof BlasCall.Axpy axpy) {
			long x = axpy.x().nativeAddress();
			long y = axpy.y().nativeAddress();
			return axpy.doubles() ? cublas.daxpy(axpy.n(), axpy.alpha(), x, axpy.incx(), y, axpy.incy())
					: cublas.saxpy(axpy.n(), (float) axpy.alpha(), x, axpy.incx(), y, axpy.incy());
		}
		BlasCall.Dot dot = (BlasCall.Dot) call;
		long x = dot.x().nativeAddress();
		long y = dot.y().nativeAddress();
		long result = dot.result().nativeAddress();
		// Device pointer mode: cuBLAS writes the result on the stream instead of waiting
		// for it to copy it to the host.
		check(this.binding, "cublasSetPointerMode_v2", cublas.setPointerMode(CublasBinding.POINTER_MODE_DEVICE),
				this.deviceId);
		try {
			return dot.doubles() ? cublas.ddot(dot.n(), x, dot.incx(), y, dot.incy(), result)
					: cublas.sdot(dot.n(), x, dot.incx(), y, dot.incy(), result);
		}
		finally {
			cublas.setPointerMode(CublasBinding.POINTER_MODE_HOST);
		}
	}

	/** The cuBLAS function a call runs, e.g. {@code cublasSgemm_v2}. */
	static String routine(BlasCall call) {
		String precision = call.doubles() ? "D" : "S";
		return switch (call.operation()) {
			case "gemmStridedBatched" -> "cublas" + precision + "gemmStridedBatched";
			default -> "cublas" + precision + call.operation() + "_v2";
		};
	}

	/**
	 * The exception for an error status; after a failed execution, the stream's CUDA
	 * error (a sticky one fails the device) is its cause.
	 */
	private BlasException error(String routine, int status, LibraryStream stream) {
		BackendException cause = null;
		if (status == CublasStatus.EXECUTION_FAILED || status == CublasStatus.INTERNAL_ERROR) {
			try {
				stream.query();
			}
			catch (BackendException ex) {
				cause = ex;
			}
		}
		String text = this.binding.statusText(status)
				+ ((cause != null) ? "; the stream's error: " + cause.getMessage() : "");
		return new BlasException(routine, status, this.binding.statusName(status), text, this.deviceId,
				cause != null && cause.isSticky(), cause);
	}

	private static void check(CublasBinding binding, String call, int status, int deviceId) {
		if (status != CublasStatus.SUCCESS) {
			throw new BlasException(call, status, binding.statusName(status), binding.statusText(status), deviceId,
					false, null);
		}
	}

	@Override
	public void close() {
		// The stream it is bound to is idle by now (a pooled stream is destroyed with no
		// work pending). cuBLAS documents that cublasDestroy_v2 synchronizes the
		// device: it runs only when the pool destroys a stream (a discard after a
		// failure, a replacement, shutdown), never on a healthy request's path.
		this.handle.destroy();
	}

	@Override
	public String toString() {
		return "CublasHandle[" + this.binding.version() + " on device " + this.deviceId + "]";
	}

}
