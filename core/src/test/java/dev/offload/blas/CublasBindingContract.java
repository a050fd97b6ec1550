package dev.offload.blas;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.FakeGpuBackend;
import dev.offload.FakeLibrary;
import dev.offload.OffloadSession;
import dev.offload.internal.blas.CublasBinding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a cuBLAS binding hands cuBLAS, checked against a fake {@code libcublas.so.13}
 * compiled here with {@code cc} (skipped without one): every routine's arguments in
 * cuBLAS's order, the scalars through the handle's own memory, statuses and their names,
 * and, through {@link Blas} on a backend that looks native, the handle's life on a pooled
 * stream and the mapping of calls and errors. One subclass per binding: JNA's here, the
 * FFM backend's in offload-backend-ffm.
 */
public abstract class CublasBindingContract {

	private static final String SOURCE = "/dev/offload/blas/fake-cublas.c";

	private static final Pattern SCALAR = Pattern.compile("(alpha|beta)=([^@,]+)@([0-9a-f]+)");

	@TempDir
	static Path directory;

	private static FakeLibrary fake;

	/**
	 * Returns the loader of the binding under test as the backend offers it.
	 * @return the loader, or {@code null} for the default binding (JNA)
	 */
	protected abstract CublasBinding.@Nullable Loader backendLoader();

	@BeforeAll
	static void compileTheFake() {
		String missing = FakeLibrary.compilerMissing();
		assumeTrue(missing == null, missing);
		fake = FakeLibrary.compile(SOURCE, directory, "libcublas.so.13");
	}

	@BeforeEach
	void clearTheFake() {
		fake.clear();
	}

	private CublasBinding.Loader loader() {
		CublasBinding.Loader loader = backendLoader();
		return (loader != null) ? loader : CublasLoader.JNA;
	}

	private CublasBinding binding() {
		return CublasLoader.load(loader(), fake.path().toString());
	}

	@Test
	public void theVersionShouldComeFromCublasGetProperty() {
		assertThat(binding().version()).isEqualTo("cuBLAS 13.0.2 (" + fake.path() + ")");
	}

	@Test
	public void everyRoutineShouldPassItsArgumentsInCublasOrder() {
		CublasBinding binding = binding();
		long[] created = new long[1];
		assertThat(binding.create(created)).isZero();
		assertThat(created[0]).isEqualTo(0xb1a5);
		CublasBinding.Handle handle = binding.handle(created[0]);
		assertThat(handle.setStream(0x5100)).isZero();
		assertThat(handle.setWorkspace(0xd100, 4096)).isZero();
		assertThat(handle.setMathMode(3)).isZero();
		assertThat(handle.setPointerMode(1)).isZero();
		assertThat(handle.sgemm(1, 0, 2, 3, 4, 1.5f, 0xa0, 5, 0xb0, 6, 0.25f, 0xc0, 7)).isZero();
		assertThat(handle.dgemm(0, 1, 3, 4, 5, 0.1, 0xa1, 8, 0xb1, 9, -2.5, 0xc1, 10)).isZero();
		assertThat(
				handle.sgemmStridedBatched(1, 1, 2, 3, 4, -1f, 0xa2, 5, 100, 0xb2, 6, 200, 2f, 0xc2, 7, 300L << 32, 11))
			.isZero();
		assertThat(handle.dgemmStridedBatched(0, 0, 2, 3, 4, 3.0, 0xa3, 5, 101, 0xb3, 6, 201, 1e-300, 0xc3, 7, 301, 12))
			.isZero();
		assertThat(handle.sgemv(1, 6, 7, 0.5f, 0xa4, 8, 0xe4, 2, 0.75f, 0xf4, 3)).isZero();
		assertThat(handle.dgemv(0, 6, 7, 1.0 / 3, 0xa5, 8, 0xe5, 4, 4.0, 0xf5, 5)).isZero();
		assertThat(handle.saxpy(9, 2.5f, 0xe6, 1, 0xf6, 2)).isZero();
		assertThat(handle.daxpy(10, -0.125, 0xe7, 3, 0xf7, 4)).isZero();
		assertThat(handle.sdot(11, 0xe8, 5, 0xf8, 6, 0x1e8)).isZero();
		assertThat(handle.ddot(12, 0xe9, 7, 0xf9, 8, 0x1e9)).isZero();
		assertThat(handle.destroy()).isZero();
		List<String> calls = fake.calls();
		assertThat(calls.stream().map(CublasBindingContract::withoutAddresses)).containsExactly("cublasCreate_v2()",
				"cublasSetStream_v2(h=b1a5,stream=5100)", "cublasSetWorkspace_v2(h=b1a5,workspace=d100,bytes=4096)",
				"cublasSetMathMode(h=b1a5,mode=3)", "cublasSetPointerMode_v2(h=b1a5,mode=1)",
				"cublasSgemm_v2(h=b1a5,ta=1,tb=0,m=2,n=3,k=4,alpha=1.5,a=a0,lda=5,b=b0,ldb=6,beta=0.25,c=c0,ldc=7)",
				"cublasDgemm_v2(h=b1a5,ta=0,tb=1,m=3,n=4,k=5,alpha=0.10000000000000001,a=a1,lda=8,b=b1,ldb=9,"
						+ "beta=-2.5,c=c1,ldc=10)",
				"cublasSgemmStridedBatched(h=b1a5,ta=1,tb=1,m=2,n=3,k=4,alpha=-1,a=a2,lda=5,strideA=100,b=b2,ldb=6,"
						+ "strideB=200,beta=2,c=c2,ldc=7,strideC=1288490188800,batchCount=11)",
				"cublasDgemmStridedBatched(h=b1a5,ta=0,tb=0,m=2,n=3,k=4,alpha=3,a=a3,lda=5,strideA=101,b=b3,ldb=6,"
						+ "strideB=201,beta=1e-300,c=c3,ldc=7,strideC=301,batchCount=12)",
				"cublasSgemv_v2(h=b1a5,trans=1,m=6,n=7,alpha=0.5,a=a4,lda=8,x=e4,incx=2,beta=0.75,y=f4,incy=3)",
				"cublasDgemv_v2(h=b1a5,trans=0,m=6,n=7,alpha=0.33333333333333331,a=a5,lda=8,x=e5,incx=4,beta=4,y=f5,"
						+ "incy=5)",
				"cublasSaxpy_v2(h=b1a5,n=9,alpha=2.5,x=e6,incx=1,y=f6,incy=2)",
				"cublasDaxpy_v2(h=b1a5,n=10,alpha=-0.125,x=e7,incx=3,y=f7,incy=4)",
				"cublasSdot_v2(h=b1a5,n=11,x=e8,incx=5,y=f8,incy=6,result=1e8)",
				"cublasDdot_v2(h=b1a5,n=12,x=e9,incx=7,y=f9,incy=8,result=1e9)", "cublasDestroy_v2(h=b1a5)");
		// One place for each scalar, allocated with the handle: no call allocates its
		// own.
		assertThat(scalarAddresses(calls, "alpha")).hasSize(1);
		assertThat(scalarAddresses(calls, "beta")).hasSize(1)
			.doesNotContainAnyElementsOf(scalarAddresses(calls, "alpha"));
	}

	@Test
	public void aStatusShouldBeReturnedAndNamedByCublas() {
		CublasBinding binding = binding();
		long[] created = new long[1];
		binding.create(created);
		CublasBinding.Handle handle = binding.handle(created[0]);
		fake.fail("cublasSgemm_v2", 13);
		fake.fail("cublasSetStream_v2", 7);
		assertThat(handle.sgemm(0, 0, 1, 1, 1, 1f, 0xa0, 1, 0xb0, 1, 0f, 0xc0, 1)).isEqualTo(13);
		assertThat(handle.setStream(0x5100)).isEqualTo(7);
		assertThat(handle.dgemm(0, 0, 1, 1, 1, 1, 0xa0, 1, 0xb0, 1, 0, 0xc0, 1)).isZero();
		assertThat(binding.statusName(13)).isEqualTo("CUBLAS_STATUS_EXECUTION_FAILED");
		assertThat(binding.statusName(7)).isEqualTo("FAKE_STATUS_7");
		assertThat(binding.statusText(7)).isEqualTo("the fake's status 7");
		handle.destroy();
	}

	@Test
	public void blasOnANativeStreamShouldBindOneHandleToItAndPassTheCallsThrough() {
		BlasLibrary library = BlasLibrary.builder().libraryPath(fake.path().toString()).workspaceBytes(8192).build();
		try (DeviceRegistry registry = registry()) {
			Device device = registry.device(0);
			for (int i = 0; i < 2; i++) {
				try (OffloadSession session = device.openSession()) {
					DeviceBuffer a = session.allocate(4 * 6 * 4);
					DeviceBuffer b = session.allocate(4 * 6 * 5);
					DeviceBuffer c = session.allocate(4 * 7 * 5);
					library.on(session).sgemm(Transpose.TRANSPOSE, Transpose.NONE, 4, 5, 6, 2f, a, 6, b, 6, 0f, c, 7);
					library.on(session)
						.withMathMode(MathMode.PEDANTIC)
						.dgemv(Transpose.TRANSPOSE, 3, 2, 1, session.allocate(8 * 3 * 2), 3, session.allocate(8 * 3), 1,
								0.5, session.allocate(8 * 2), 1);
					library.on(session).sdot(3, a, 2, b, 1, c);
				}
			}
			assertThat(library.statistics(device).handlesCreated()).isEqualTo(1);
			assertThat(library.statistics(device).workspaceAllocations()).isEqualTo(1);
		}
		List<String> calls = fake.calls().stream().map(CublasBindingContract::withoutAddresses).toList();
		assertThat(calls.get(0)).isEqualTo("cublasCreate_v2()");
		assertThat(calls.get(1)).matches("cublasSetStream_v2\\(h=b1a5,stream=5[0-9a-f]{3}\\)");
		assertThat(calls.get(2)).matches("cublasSetWorkspace_v2\\(h=b1a5,workspace=d[0-9a-f]{7},bytes=8192\\)");
		assertThat(calls.subList(3, calls.size()).stream().map((call) -> call.replaceAll("=d[0-9a-f]{7}", "=D")))
			.containsExactly(
					"cublasSgemm_v2(h=b1a5,ta=1,tb=0,m=4,n=5,k=6,alpha=2,a=D,lda=6,b=D,ldb=6,beta=0,c=D,ldc=7)",
					"cublasSetMathMode(h=b1a5,mode=2)",
					"cublasDgemv_v2(h=b1a5,trans=1,m=3,n=2,alpha=1,a=D,lda=3,x=D,incx=1,beta=0.5,y=D,incy=1)",
					"cublasSetMathMode(h=b1a5,mode=0)", "cublasSetPointerMode_v2(h=b1a5,mode=1)",
					"cublasSdot_v2(h=b1a5,n=3,x=D,incx=2,y=D,incy=1,result=D)",
					"cublasSetPointerMode_v2(h=b1a5,mode=0)",
					"cublasSgemm_v2(h=b1a5,ta=1,tb=0,m=4,n=5,k=6,alpha=2,a=D,lda=6,b=D,ldb=6,beta=0,c=D,ldc=7)",
					"cublasSetMathMode(h=b1a5,mode=2)",
					"cublasDgemv_v2(h=b1a5,trans=1,m=3,n=2,alpha=1,a=D,lda=3,x=D,incx=1,beta=0.5,y=D,incy=1)",
					"cublasSetMathMode(h=b1a5,mode=0)", "cublasSetPointerMode_v2(h=b1a5,mode=1)",
					"cublasSdot_v2(h=b1a5,n=3,x=D,incx=2,y=D,incy=1,result=D)",
					"cublasSetPointerMode_v2(h=b1a5,mode=0)", "cublasDestroy_v2(h=b1a5)");
	}

	@Test
	public void aFailedStatusShouldFailTheSessionsWorkWithItsName() {
		BlasLibrary library = BlasLibrary.builder().libraryPath(fake.path().toString()).workspaceBytes(0).build();
		fake.fail("cublasDgemm_v2", 13);
		try (DeviceRegistry registry = registry()) {
			Device device = registry.device(0);
			OffloadSession session = device.openSession();
			DeviceBuffer matrix = session.allocate(8 * 4);
			assertThatExceptionOfType(BlasException.class).isThrownBy(() -> {
				library.on(session)
					.dgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 1, matrix, 2, matrix, 2, 0, matrix, 2);
				session.synchronize();
			}).satisfies((ex) -> {
				assertThat(ex.getCall()).isEqualTo("cublasDgemm_v2");
				assertThat(ex.getStatus()).isEqualTo(13);
				assertThat(ex.getStatusName()).isEqualTo("CUBLAS_STATUS_EXECUTION_FAILED");
				assertThat(ex.getErrorText()).isEqualTo("the fake's status 13");
				assertThat(ex.isSticky()).isFalse();
			});
			session.close();
			assertThat(library.statistics(device).failedCalls()).isEqualTo(1);
		}
	}

	private DeviceRegistry registry() {
		CublasBinding.Loader loader = backendLoader();
		return DeviceRegistry
			.builder(new FakeGpuBackend((type) -> (type == CublasBinding.Loader.class) ? loader : null))
			.build();
	}

	private static String withoutAddresses(String call) {
		return SCALAR.matcher(call).replaceAll("$1=$2");
	}

	private static List<String> scalarAddresses(List<String> calls, String scalar) {
		return calls.stream()
			.flatMap((call) -> SCALAR.matcher(call).results())
			.filter((match) -> match.group(1).equals(scalar))
			.map((match) -> match.group(3))
			.distinct()
			.toList();
	}

}
