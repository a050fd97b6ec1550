package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.LibraryStatistics;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.BlasReference;
import dev.offload.blas.MathMode;
import dev.offload.blas.Transpose;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * cuBLAS on a real device through Offload's sessions: results against plain loops in
 * double (single precision within 1e-5 of the largest expected magnitude in the default
 * math mode, 5e-3 with TF32; double within 1e-12), every operation, the handle kept by
 * each pooled stream (no handle created and no workspace allocated after warm-up), and
 * the workspace counted in the device's budget. cuBLAS is found by soname
 * ({@code libcublas.so.13}, then {@code .12}) or at the path of the system property
 * {@code offload.blas.library}.
 */
@GpuTests
class CudaBlasGpuTests {

	private static final int STREAMS = 4;

	private DeviceRegistry registry;

	private Device device;

	private BlasLibrary library;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(CudaBackend.create())
			.deviceIds(List.of(0))
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(STREAMS).withMaxSize(STREAMS))
			.build();
		JCudaExceptionMode.configured().apply();
		this.device = this.registry.device(0);
		this.library = BlasLibrary.builder()
			.libraryPath(System.getProperty("offload.blas.library"))
			.workspaceBytes(8L << 20)
			.build();
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void sgemmShouldMatchTheReferenceWithTransposesAndLeadingDimensions() {
		for (Transpose ta : Transpose.values()) {
			for (Transpose tb : Transpose.values()) {
				int m = 96;
				int n = 80;
				int k = 72;
				int lda = ((ta == Transpose.NONE) ? m : k) + 3;
				int ldb = ((tb == Transpose.NONE) ? k : n) + 1;
				int ldc = m + 5;
				float[] a = BlasReference.randomFloats(lda * ((ta == Transpose.NONE) ? k : m), 1);
				float[] b = BlasReference.randomFloats(ldb * ((tb == Transpose.NONE) ? n : k), 2);
				float[] c = BlasReference.randomFloats(ldc * n, 3);
				float[] result = new float[c.length];
				try (OffloadSession session = this.device.openSession()) {
					DeviceBuffer dc = upload(session, c);
					this.library.on(session)
						.sgemm(ta, tb, m, n, k, 1.5f, upload(session, a), lda, upload(session, b), ldb, 0.5f, dc, ldc);
					download(session, dc, result);
				}
				double[] expected = BlasReference.gemm(ta, tb, m, n, k, 1.5, BlasReference.toDoubles(a), lda, 0,
						BlasReference.toDoubles(b), ldb, 0, 0.5, BlasReference.toDoubles(c), ldc, 0, 1);
				assertThat(BlasReference.relativeError(expected, BlasReference.toDoubles(result)))
					.as("sgemm %s %s", ta, tb)
					.isLessThan(1e-5);
			}
		}
	}

	@Test
	void sgemmInTf32ModeShouldBeCloseToTheReference() {
		int m = 256;
		float[] a = BlasReference.randomFloats(m * m, 4);
		float[] b = BlasReference.randomFloats(m * m, 5);
		float[] result = new float[m * m];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer dc = session.allocate((long) m * m * Float.BYTES);
			Blas tf32 = this.library.on(session).withMathMode(MathMode.TF32);
			tf32.sgemm(Transpose.NONE, Transpose.NONE, m, m, m, 1, upload(session, a), m, upload(session, b), m, 0, dc,
					m);
			download(session, dc, result);
		}
		double[] expected = BlasReference.gemm(Transpose.NONE, Transpose.NONE, m, m, m, 1, BlasReference.toDoubles(a),
				m, 0, BlasReference.toDoubles(b), m, 0, 0, new double[m * m], m, 0, 1);
		assertThat(BlasReference.relativeError(expected, BlasReference.toDoubles(result))).isLessThan(5e-3);
	}

	@Test
	void dgemmShouldMatchTheReference() {
		int m = 64;
		int n = 48;
		int k = 100;
		double[] a = BlasReference.randomDoubles(k * m, 6);
		double[] b = BlasReference.randomDoubles(k * n, 7);
		double[] result = new double[m * n];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer dc = session.allocate((long) m * n * Double.BYTES);
			this.library.on(session)
				.dgemm(Transpose.TRANSPOSE, Transpose.NONE, m, n, k, 1, upload(session, a), k, upload(session, b), k, 0,
						dc, m);
			download(session, dc, result);
		}
		double[] expected = BlasReference.gemm(Transpose.TRANSPOSE, Transpose.NONE, m, n, k, 1, a, k, 0, b, k, 0, 0,
				new double[m * n], m, 0, 1);
		assertThat(BlasReference.relativeError(expected, result)).isLessThan(1e-12);
	}

	@Test
	void stridedBatchedGemmShouldMatchTheReference() {
		int m = 32;
		int n = 24;
		int k = 16;
		int batch = 10;
		long strideA = (long) m * k + 7;
		long strideB = (long) k * n;
		long strideC = (long) m * n + 3;
		float[] a = BlasReference.randomFloats((int) (strideA * batch), 8);
		float[] b = BlasReference.randomFloats((int) (strideB * batch), 9);
		float[] c = BlasReference.randomFloats((int) (strideC * batch), 10);
		double[] da = BlasReference.randomDoubles((int) (strideA * batch), 11);
		double[] db = BlasReference.randomDoubles((int) (strideB * batch), 12);
		double[] dc = new double[(int) (strideC * batch)];
		float[] result = new float[c.length];
		double[] doubleResult = new double[dc.length];
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = this.library.on(session);
			DeviceBuffer fc = upload(session, c);
			blas.sgemmStridedBatched(Transpose.NONE, Transpose.TRANSPOSE, m, n, k, 2, upload(session, a), m, strideA,
					upload(session, b), n, strideB, 1, fc, m, strideC, batch);
			DeviceBuffer ddc = upload(session, dc);
			blas.dgemmStridedBatched(Transpose.NONE, Transpose.NONE, m, n, k, 1, upload(session, da), m, strideA,
					upload(session, db), k, strideB, 0, ddc, m, strideC, batch);
			download(session, fc, result);
			download(session, ddc, doubleResult);
		}
		assertThat(BlasReference.relativeError(BlasReference.gemm(Transpose.NONE, Transpose.TRANSPOSE, m, n, k, 2,
				BlasReference.toDoubles(a), m, strideA, BlasReference.toDoubles(b), n, strideB, 1,
				BlasReference.toDoubles(c), m, strideC, batch), BlasReference.toDoubles(result)))
			.isLessThan(1e-5);
		assertThat(BlasReference.relativeError(BlasReference.gemm(Transpose.NONE, Transpose.NONE, m, n, k, 1, da, m,
				strideA, db, k, strideB, 0, dc, m, strideC, batch), doubleResult))
			.isLessThan(1e-12);
	}

	@Test
	void gemvAxpyAndDotShouldMatchTheReference() {
		int m = 300;
		int n = 200;
		double[] a = BlasReference.randomDoubles(m * n, 13);
		for (Transpose trans : Transpose.values()) {
			int xs = (trans == Transpose.NONE) ? n : m;
			int ys = (trans == Transpose.NONE) ? m : n;
			double[] x = BlasReference.randomDoubles(2 * xs, 14);
			double[] y = BlasReference.randomDoubles(ys, 15);
			double[] result = new double[ys];
			try (OffloadSession session = this.device.openSession()) {
				DeviceBuffer dy = upload(session, y);
				this.library.on(session)
					.dgemv(trans, m, n, 0.5, upload(session, a), m, upload(session, x), 2, 2, dy, 1);
				download(session, dy, result);
			}
			assertThat(BlasReference.relativeError(BlasReference.gemv(trans, m, n, 0.5, a, m, x, 2, 2, y, 1), result))
				.as("dgemv %s", trans)
				.isLessThan(1e-12);
		}
		float[] x = BlasReference.randomFloats(1000, 16);
		float[] y = BlasReference.randomFloats(1000, 17);
		float[] sum = new float[1000];
		float[] dot = new float[1];
		double[] ddot = new double[1];
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = this.library.on(session);
			DeviceBuffer dx = upload(session, x);
			DeviceBuffer dy = upload(session, y);
			DeviceBuffer result = session.allocate(Float.BYTES);
			blas.sdot(1000, dx, 1, dy, 1, result);
			blas.saxpy(1000, 3, dx, 1, dy, 1);
			DeviceBuffer dd = upload(session, BlasReference.toDoubles(x));
			DeviceBuffer dresult = session.allocate(Double.BYTES);
			blas.ddot(500, dd, 2, dd, 2, dresult);
			download(session, dy, sum);
			download(session, result, dot);
			download(session, dresult, ddot);
		}
		double expectedDot = 0;
		double expectedDdot = 0;
		for (int i = 0; i < 1000; i++) {
			expectedDot += (double) x[i] * y[i];
			assertThat((double) sum[i]).isCloseTo(3.0 * x[i] + y[i], within(1e-5));
			if (i % 2 == 0) {
				expectedDdot += (double) x[i] * x[i];
			}
		}
		assertThat((double) dot[0]).isCloseTo(expectedDot, within(1e-3));
		assertThat(ddot[0]).isCloseTo(expectedDdot, within(1e-9));
	}

	@Test
	void noHandleShouldBeCreatedAndNoWorkspaceAllocatedAfterWarmUp() throws Exception {
		// Warm-up: every stream of the bounded pool gets its handle.
		List<OffloadSession> sessions = new ArrayList<>();
		for (int i = 0; i < STREAMS; i++) {
			OffloadSession session = this.device.openSession();
			DeviceBuffer x = session.allocate(64 * Float.BYTES);
			session.fill(x, (byte) 0);
			this.library.on(session).saxpy(64, 1, x, 1, x, 1);
			sessions.add(session);
		}
		sessions.forEach(OffloadSession::close);
		LibraryStatistics warm = this.library.statistics(this.device);
		assertThat(warm.handlesCreated()).isEqualTo(STREAMS);
		assertThat(warm.workspaceAllocations()).isEqualTo(STREAMS);
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				done.add(threads.submit(() -> {
					for (int i = 0; i < 200; i++) {
						try (OffloadSession session = this.device.openSession()) {
							DeviceBuffer a = session.allocate(64 * 64 * Float.BYTES);
							DeviceBuffer c = session.allocate(64 * 64 * Float.BYTES);
							session.fill(a, (byte) 0);
							this.library.on(session)
								.sgemm(Transpose.NONE, Transpose.NONE, 64, 64, 64, 1, a, 64, a, 64, 0, c, 64);
						}
					}
				}));
			}
			for (Future<?> each : done) {
				each.get();
			}
		}
		finally {
			threads.shutdown();
		}
		LibraryStatistics after = this.library.statistics(this.device);
		assertThat(after.handlesCreated() - warm.handlesCreated()).isZero();
		assertThat(after.workspaceAllocations() - warm.workspaceAllocations()).isZero();
		assertThat(after.calls() - warm.calls()).isEqualTo(8 * 200);
		assertThat(after.failedCalls()).isZero();
	}

	@Test
	void theWorkspaceShouldCountInTheBudgetUntilItsStreamIsDestroyed() {
		long before = this.device.memoryStatistics().usedBytes();
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer x = session.allocate(Float.BYTES);
			session.fill(x, (byte) 0);
			this.library.on(session).saxpy(1, 1, x, 1, x, 1);
		}
		long workspace = Device.allocationSize(8L << 20);
		assertThat(this.library.statistics(this.device).workspaceBytes()).isEqualTo(workspace);
		// No session is open: what is in use is the handle's workspace.
		assertThat(this.device.memoryStatistics().usedBytes() - before).isEqualTo(workspace);
		this.registry.close();
		LibraryStatistics closed = this.library.statistics(this.device);
		assertThat(closed.openHandles()).isZero();
		assertThat(closed.workspaceBytes()).isZero();
	}

	@Test
	void theTemplateShouldRunBlasWithHostArrays() {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		template.setBlasLibrary(this.library);
		float[] product = template.blas()
			.sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, new float[] { 1, 3, 2, 4 }, new float[] { 5, 7, 6, 8 });
		assertThat(product).containsExactly(19, 43, 22, 50);
		assertThat(template.blas().sdot(new float[] { 1, 2, 3 }, new float[] { 4, 5, 6 })).isEqualTo(32);
	}

	private static DeviceBuffer upload(OffloadSession session, float[] values) {
		DeviceBuffer buffer = session.allocate((long) values.length * Float.BYTES);
		session.copy(session.hostBuffer(values), buffer);
		return buffer;
	}

	private static DeviceBuffer upload(OffloadSession session, double[] values) {
		DeviceBuffer buffer = session.allocate((long) values.length * Double.BYTES);
		session.copy(session.hostBuffer(values), buffer);
		return buffer;
	}

	private static void download(OffloadSession session, DeviceBuffer buffer, float[] into) {
		HostBuffer host = session.allocateHost((long) into.length * Float.BYTES);
		session.copy(buffer, 0, host, 0, host.size());
		session.synchronize();
		host.getFloats(0, into);
	}

	private static void download(OffloadSession session, DeviceBuffer buffer, double[] into) {
		HostBuffer host = session.allocateHost((long) into.length * Double.BYTES);
		session.copy(buffer, 0, host, 0, host.size());
		session.synchronize();
		host.getDoubles(0, into);
	}

}
