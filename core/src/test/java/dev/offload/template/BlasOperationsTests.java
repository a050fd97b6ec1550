package dev.offload.template;

import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.MathMode;
import dev.offload.blas.Transpose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code template.blas()} on the host emulation: host arrays in and out, the bound
 * session joined.
 */
class BlasOperationsTests {

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).workersPerDevice(2).build())
			.build();
		this.template = new OffloadTemplate(this.registry);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void sgemmShouldReturnTheColumnMajorProduct() {
		// A = [1 2; 3 4], B = [5 6; 7 8], column-major.
		float[] a = { 1, 3, 2, 4 };
		float[] b = { 5, 7, 6, 8 };
		assertThat(this.template.blas().sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, a, b)).containsExactly(19, 43,
				22, 50);
		assertThat(this.template.blas()
			.sgemm(Transpose.TRANSPOSE, Transpose.NONE, 2, 2, 2, 1, a, b, 1, new float[] { 1, 1, 1, 1 }))
			.containsExactly(27, 39, 31, 45);
		assertThat(this.template.blas()
			.withMathMode(MathMode.PEDANTIC)
			.dgemm(Transpose.NONE, Transpose.TRANSPOSE, 2, 2, 2, 2, new double[] { 1, 3, 2, 4 },
					new double[] { 5, 7, 6, 8 }))
			.containsExactly(2 * 17, 2 * 39, 2 * 23, 2 * 53);
	}

	@Test
	void callsInALoopInsideABoundSessionShouldHoldOneCallsMemory() {
		float[] x = new float[1000];
		Arrays.fill(x, 1f);
		long reserved = this.template.execute((session) -> {
			for (int call = 1; call <= 30; call++) {
				float[] y = this.template.blas().saxpy(call, x, x);
				assertThat(y[999]).isEqualTo(call + 1f);
			}
			return session.reservedMemory();
		});
		// x and y of one call, not of thirty.
		assertThat(reserved).isEqualTo(2 * Device.allocationSize(4000));
		assertThat(this.registry.device(0).memoryStatistics().deviceAllocations()).isEqualTo(2);
		assertThat(this.registry.device(0).memoryStatistics().hostPeakBytes()).isLessThanOrEqualTo(4 * 4096);
	}

	@Test
	void vectorOperationsShouldReturnTheirResults() {
		assertThat(this.template.blas()
			.sgemv(Transpose.NONE, 2, 3, 1, new float[] { 1, 2, 3, 4, 5, 6 }, new float[] { 1, 1, 1 }))
			.containsExactly(9, 12);
		assertThat(this.template.blas()
			.dgemv(Transpose.TRANSPOSE, 2, 3, 1, new double[] { 1, 2, 3, 4, 5, 6 }, new double[] { 1, 1 }))
			.containsExactly(3, 7, 11);
		assertThat(this.template.blas().saxpy(2, new float[] { 1, 2 }, new float[] { 10, 20 })).containsExactly(12, 24);
		assertThat(this.template.blas().daxpy(-1, new double[] { 1, 2 }, new double[] { 1, 2 })).containsExactly(0, 0);
		assertThat(this.template.blas().sdot(new float[] { 1, 2, 3 }, new float[] { 4, 5, 6 })).isEqualTo(32);
		assertThat(this.template.blas().ddot(new double[] { 0.1, 0.2 }, new double[] { 10, 10 })).isCloseTo(3,
				within(1e-12));
	}

	@Test
	void aCallShouldJoinTheBoundSessionAndUseTheTemplatesLibrary() {
		BlasLibrary library = BlasLibrary.builder().workspaceBytes(0).build();
		this.template.setBlasLibrary(library);
		float dot = this.template.execute((session) -> {
			OffloadSession bound = this.template.currentSession().orElseThrow();
			assertThat(bound).isSameAs(session);
			return this.template.blas().sdot(new float[] { 2 }, new float[] { 3 });
		});
		assertThat(dot).isEqualTo(6);
		assertThat(library.statistics(this.registry.device(0)).calls()).isEqualTo(1);
	}

	@Test
	void arraysThatDoNotFitTheDimensionsShouldBeRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.blas()
				.sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, new float[3], new float[4]))
			.withMessageContaining("A must hold 4 elements");
		assertThatIllegalArgumentException().isThrownBy(() -> this.template.blas().sdot(new float[2], new float[3]))
			.withMessageContaining("same number");
	}

	@Test
	void dimensionsShouldBeCheckedBeforeTheResultIsAllocated() {
		BlasOperations blas = this.template.blas();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> blas.sgemm(Transpose.NONE, Transpose.NONE, -1, 2, 3, 1f, new float[6], new float[6]))
			.withMessageContaining("m, n and k must be at least 1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> blas.dgemm(Transpose.NONE, Transpose.NONE, 70_000, 70_000, 1, 1, new double[70_000],
					new double[70_000]))
			.withMessageContaining("larger than a Java array");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> blas.sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1f, null, new float[4]))
			.withMessage("A must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> blas.ddot(new double[2], null))
			.withMessage("y must not be null");
	}

}
