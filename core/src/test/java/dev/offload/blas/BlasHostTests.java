package dev.offload.blas;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.LibraryStatistics;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * BLAS calls on the host emulation against plain loops: the tolerances the guide states
 * (single precision within 1e-5 of the largest expected magnitude for these sizes, double
 * within 1e-12), every operation, transposes and leading dimensions larger than the rows,
 * and the handle kept by the pooled stream.
 */
class BlasHostTests {

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private DeviceRegistry registry;

	private Device device;

	@BeforeEach
	void setUp() {
		OffloadListener listener = new OffloadListener() {

			@Override
			public void libraryCalled(OffloadSession session, String library, String operation, long nanos,
					@Nullable Throwable failure) {
				BlasHostTests.this.calls.add(library + "." + operation + ((failure != null) ? " failed" : ""));
			}

		};
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
			.listener(listener)
			.build();
		this.device = this.registry.device(0);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void sgemmShouldMatchTheReferenceWithTransposesAndLeadingDimensions() {
		for (Transpose ta : Transpose.values()) {
			for (Transpose tb : Transpose.values()) {
				int m = 7;
				int n = 5;
				int k = 6;
				int lda = ((ta == Transpose.NONE) ? m : k) + 2;
				int ldb = ((tb == Transpose.NONE) ? k : n) + 1;
				int ldc = m + 3;
				float[] a = BlasReference.randomFloats(lda * ((ta == Transpose.NONE) ? k : m), 1);
				float[] b = BlasReference.randomFloats(ldb * ((tb == Transpose.NONE) ? n : k), 2);
				float[] c = BlasReference.randomFloats(ldc * n, 3);
				float[] result = new float[c.length];
				try (OffloadSession session = this.device.openSession()) {
					DeviceBuffer da = upload(session, a);
					DeviceBuffer db = upload(session, b);
					DeviceBuffer dc = upload(session, c);
					Blas.on(session).sgemm(ta, tb, m, n, k, 1.5f, da, lda, db, ldb, 0.5f, dc, ldc);
					download(session, dc, result);
				}
				double[] expected = BlasReference.gemm(ta, tb, m, n, k, 1.5, BlasReference.toDoubles(a), lda, 0,
						BlasReference.toDoubles(b), ldb, 0, 0.5, BlasReference.toDoubles(c), ldc, 0, 1);
				assertThat(BlasReference.relativeError(expected, BlasReference.toDoubles(result))).as("%s %s", ta, tb)
					.isLessThan(1e-5);
			}
		}
		assertThat(this.calls).containsOnly("blas.sgemm").hasSize(4);
	}

	@Test
	void dgemmShouldMatchTheReference() {
		int m = 9;
		int n = 4;
		int k = 11;
		double[] a = BlasReference.randomDoubles(k * m, 4);
		double[] b = BlasReference.randomDoubles(k * n, 5);
		double[] c = new double[m * n];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer da = upload(session, a);
			DeviceBuffer db = upload(session, b);
			DeviceBuffer dc = upload(session, c);
			Blas.on(session).dgemm(Transpose.TRANSPOSE, Transpose.NONE, m, n, k, 1, da, k, db, k, 0, dc, m);
			download(session, dc, c);
		}
		double[] expected = BlasReference.gemm(Transpose.TRANSPOSE, Transpose.NONE, m, n, k, 1, a, k, 0, b, k, 0, 0,
				new double[m * n], m, 0, 1);
		assertThat(BlasReference.relativeError(expected, c)).isLessThan(1e-12);
	}

	@Test
	void gemmWithBetaZeroShouldNotReadC() {
		float[] c = { Float.NaN, Float.NaN, Float.NaN, Float.NaN };
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer identity = upload(session, new float[] { 1, 0, 0, 1 });
			DeviceBuffer x = upload(session, new float[] { 1, 2, 3, 4 });
			DeviceBuffer dc = upload(session, c);
			Blas.on(session).sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, identity, 2, x, 2, 0, dc, 2);
			download(session, dc, c);
		}
		assertThat(c).containsExactly(1, 2, 3, 4);
	}

	@Test
	void stridedBatchedGemmShouldMatchTheReference() {
		int m = 4;
		int n = 3;
		int k = 5;
		int batch = 6;
		long strideA = (long) m * k + 2;
		long strideB = (long) k * n;
		long strideC = (long) m * n + 1;
		float[] a = BlasReference.randomFloats((int) (strideA * batch), 6);
		float[] b = BlasReference.randomFloats((int) (strideB * batch), 7);
		float[] c = BlasReference.randomFloats((int) (strideC * batch), 8);
		float[] result = new float[c.length];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer da = upload(session, a);
			DeviceBuffer db = upload(session, b);
			DeviceBuffer dc = upload(session, c);
			Blas.on(session)
				.sgemmStridedBatched(Transpose.NONE, Transpose.TRANSPOSE, m, n, k, 2, da, m, strideA, db, n, strideB, 1,
						dc, m, strideC, batch);
			download(session, dc, result);
		}
		double[] expected = BlasReference.gemm(Transpose.NONE, Transpose.TRANSPOSE, m, n, k, 2,
				BlasReference.toDoubles(a), m, strideA, BlasReference.toDoubles(b), n, strideB, 1,
				BlasReference.toDoubles(c), m, strideC, batch);
		assertThat(BlasReference.relativeError(expected, BlasReference.toDoubles(result))).isLessThan(1e-5);
		assertThat(this.calls).containsExactly("blas.sgemmStridedBatched");
	}

	@Test
	void gemvShouldMatchTheReferenceBothWays() {
		int m = 6;
		int n = 4;
		int lda = 8;
		double[] a = BlasReference.randomDoubles(lda * n, 9);
		for (Transpose trans : Transpose.values()) {
			int xs = (trans == Transpose.NONE) ? n : m;
			int ys = (trans == Transpose.NONE) ? m : n;
			double[] x = BlasReference.randomDoubles(2 * xs, 10);
			double[] y = BlasReference.randomDoubles(3 * ys, 11);
			double[] result = new double[y.length];
			try (OffloadSession session = this.device.openSession()) {
				DeviceBuffer da = upload(session, a);
				DeviceBuffer dx = upload(session, x);
				DeviceBuffer dy = upload(session, y);
				Blas.on(session).dgemv(trans, m, n, 0.75, da, lda, dx, 2, -1, dy, 3);
				download(session, dy, result);
			}
			double[] expected = BlasReference.gemv(trans, m, n, 0.75, a, lda, x, 2, -1, y, 3);
			assertThat(BlasReference.relativeError(expected, result)).as("%s", trans).isLessThan(1e-12);
		}
		float[] fa = { 1, 2, 3, 4 };
		float[] result = new float[2];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer dy = upload(session, new float[2]);
			Blas.on(session)
				.sgemv(Transpose.NONE, 2, 2, 1, upload(session, fa), 2, upload(session, new float[] { 1, 1 }), 1, 0, dy,
						1);
			download(session, dy, result);
		}
		assertThat(result).containsExactly(4, 6);
	}

	@Test
	void axpyAndDotShouldComputeOnTheStream() {
		float[] x = { 1, 2, 3, 4 };
		float[] y = { 10, 20, 30, 40 };
		float[] updated = new float[4];
		float[] dot = new float[1];
		double[] ddot = new double[1];
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = Blas.on(session);
			DeviceBuffer dx = upload(session, x);
			DeviceBuffer dy = upload(session, y);
			blas.saxpy(4, 2, dx, 1, dy, 1);
			DeviceBuffer result = session.allocate(Float.BYTES);
			blas.sdot(2, dx, 2, dy, 2, result);
			download(session, dy, updated);
			download(session, result, dot);
			DeviceBuffer dd = upload(session, new double[] { 1.5, 2.5 });
			DeviceBuffer dresult = session.allocate(Double.BYTES);
			blas.daxpy(2, 1, dd, 1, dd, 1);
			blas.ddot(2, dd, 1, dd, 1, dresult);
			download(session, dresult, ddot);
		}
		assertThat(updated).containsExactly(12, 24, 36, 48);
		assertThat(dot[0]).isEqualTo(1 * 12 + 3 * 36);
		assertThat(ddot[0]).isEqualTo(3 * 3 + 5 * 5);
	}

	@Test
	void theHandleShouldStayWithThePooledStream() {
		BlasLibrary library = BlasLibrary.builder().mathMode(MathMode.TF32).build();
		for (int i = 0; i < 20; i++) {
			try (OffloadSession session = this.device.openSession()) {
				DeviceBuffer x = upload(session, new float[] { 1, 2 });
				library.on(session).saxpy(2, 1, x, 1, x, 1);
			}
		}
		LibraryStatistics statistics = library.statistics(this.device);
		assertThat(statistics.library()).isEqualTo("blas");
		assertThat(statistics.handlesCreated()).isEqualTo(1);
		assertThat(statistics.calls()).isEqualTo(20);
		assertThat(statistics.workspaceAllocations()).isZero();
		assertThat(BlasLibrary.standard().statistics(this.device).handlesCreated()).isZero();
	}

	@Test
	void handlesShouldCloseWithTheirStreams() {
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer x = upload(session, new float[] { 1 });
			Blas.on(session).saxpy(1, 1, x, 1, x, 1);
		}
		this.registry.close(Duration.ofSeconds(5));
		LibraryStatistics statistics = BlasLibrary.standard().statistics(this.device);
		assertThat(statistics.handlesCreated()).isEqualTo(1);
		assertThat(statistics.openHandles()).isZero();
	}

	@Test
	void wrongArgumentsShouldThrowBeforeAnythingIsEnqueued() {
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = Blas.on(session);
			DeviceBuffer small = session.allocate(4 * Float.BYTES);
			assertThatIllegalArgumentException()
				.isThrownBy(
						() -> blas.sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, small, 1, small, 2, 0, small, 2))
				.withMessageContaining("lda");
			assertThatIllegalArgumentException()
				.isThrownBy(
						() -> blas.sgemm(Transpose.NONE, Transpose.NONE, 3, 3, 3, 1, small, 3, small, 3, 0, small, 3))
				.withMessageContaining("sgemm's A");
			assertThatIllegalArgumentException().isThrownBy(() -> blas.saxpy(2, 1, small, 0, small, 1))
				.withMessageContaining("incx");
			try (OffloadSession other = this.registry.device(1).openSession()) {
				DeviceBuffer elsewhere = other.allocate(16);
				assertThatIllegalArgumentException().isThrownBy(() -> blas.saxpy(1, 1, elsewhere, 1, small, 1))
					.withMessageContaining("device 1");
			}
			blas.saxpy(4, 1, small, 1, small, 1);
			session.synchronize();
			assertThat(session.failure()).isNull();
		}
	}

	@Test
	void aBlasCallShouldBeOrderedWithTheSessionsCopies() {
		float[] result = new float[3];
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer x = session.allocate(3 * Float.BYTES);
			DeviceBuffer y = session.allocate(3 * Float.BYTES);
			session.copy(session.hostBuffer(new float[] { 1, 1, 1 }), x);
			session.fill(y, (byte) 0);
			Blas.on(session).saxpy(3, 3, x, 1, y, 1);
			HostBuffer out = session.allocateHost(3 * Float.BYTES);
			session.copy(y, out);
			session.synchronize();
			out.getFloats(0, result);
		}
		assertThat(result).containsExactly(3, 3, 3);
	}

	@Test
	void stridesWhoseBatchesSpanMoreThanALongShouldBeRefusedNamingThem() {
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = Blas.on(session);
			DeviceBuffer a = upload(session, new float[16]);
			DeviceBuffer b = upload(session, new float[] { 1 });
			DeviceBuffer c = upload(session, new float[9]);
			// 2^62 x 4 wraps to 0, Long.MAX_VALUE x 2 + 3 to 1: both passed the size
			// check.
			assertThatIllegalArgumentException()
				.isThrownBy(() -> blas.sgemmStridedBatched(Transpose.NONE, Transpose.NONE, 1, 1, 1, 1, a, 1, 1L << 62,
						b, 1, 0, 0, c, 1, 1, 5))
				.withMessageContaining("strideA 4611686018427387904");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> blas.sgemmStridedBatched(Transpose.NONE, Transpose.NONE, 3, 1, 1, 1, a, 3,
						Long.MAX_VALUE, b, 1, 0, 0, c, 3, 3, 3))
				.withMessageContaining("strideA");
			session.synchronize();
		}
		assertThat(this.device.isHealthy()).isTrue();
	}

	@Test
	void gemvOfAnEmptyMatrixShouldLeaveYAsItIsAndAxpyWithAlphaZeroShouldNotReadX() {
		float[] y = { 1, 2, 3 };
		double[] yd = { 1, 2 };
		try (OffloadSession session = this.device.openSession()) {
			Blas blas = Blas.on(session);
			DeviceBuffer dy = upload(session, y);
			blas.sgemv(Transpose.NONE, 3, 0, 1, upload(session, new float[3]), 3, upload(session, new float[1]), 1, 0,
					dy, 1);
			download(session, dy, y);
			DeviceBuffer dyd = upload(session, yd);
			blas.daxpy(2, 0, upload(session, new double[] { Double.POSITIVE_INFINITY, Double.NaN }), 1, dyd, 1);
			download(session, dyd, yd);
		}
		assertThat(y).containsExactly(1, 2, 3);
		assertThat(yd).containsExactly(1, 2);
	}

	private static DeviceBuffer upload(OffloadSession session, float[] values) {
		DeviceBuffer buffer = session.allocate(Math.max(1, (long) values.length * Float.BYTES));
		session.copy(session.hostBuffer(values), buffer);
		return buffer;
	}

	private static DeviceBuffer upload(OffloadSession session, double[] values) {
		DeviceBuffer buffer = session.allocate(Math.max(1, (long) values.length * Double.BYTES));
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
