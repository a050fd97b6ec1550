package dev.offload.backend.ffm;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import jcuda.runtime.cudaStream_t;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasUnavailableException;
import dev.offload.blas.Transpose;
import dev.offload.compile.KernelCache;
import dev.offload.internal.blas.CublasBinding;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What only the FFM binding has, on a GPU: its raw handles, JCuda's handles made of them,
 * the reusable parameter storage under launches of mixed argument types, cuBLAS through
 * its own binding. The shared behaviour runs in the CUDA suite with
 * {@code -Doffload.test.cuda-binding=ffm} ({@code GPU_RUN_PARTS=ffm}). Skipped where the
 * FFM binding finds no GPU.
 */
@Tag("gpu")
@EnabledIf("gpuAvailable")
class FfmGpuTests {

	private static final ModuleDefinition SAXPY = ModuleDefinition.builder("saxpy")
		.imageResource("kernels/saxpy.ptx")
		.build();

	@TempDir
	static Path kernels;

	private static DeviceRegistry registry;

	private static Device device;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(FfmBackend.create(KernelCache.create(kernels, null)))
			.deviceIds(List.of(0))
			.build();
		device = registry.device(0);
	}

	@AfterAll
	static void closeRegistry() {
		registry.close();
	}

	static boolean gpuAvailable() {
		return FfmBackend.probe().available();
	}

	@Test
	void probeShouldSayTheBindingAndHowFunctionsWereResolved() {
		System.out.println("FFM binding: " + FfmBackend.probe().message());
		assertThat(FfmBackend.probe().message()).contains("through the FFM binding").contains("cuGetProcAddress_v2");
		assertThat(device.backendName()).isEqualTo("cuda");
	}

	@Test
	void saxpyShouldComputeThroughThePackedParameters() {
		Kernel saxpy = device.loadModule(SAXPY).kernel("saxpy");
		int n = 1024;
		float[] x = new float[n];
		float[] y = new float[n];
		for (int i = 0; i < n; i++) {
			x[i] = i;
			y[i] = 1;
		}
		for (int round = 0; round < 3; round++) {
			try (OffloadSession session = device.openSession()) {
				DeviceBuffer dx = session.allocate((long) n * Float.BYTES);
				DeviceBuffer dy = session.allocate((long) n * Float.BYTES);
				session.copy(session.hostBuffer(x), dx);
				session.copy(session.hostBuffer(y), dy);
				session.launch(saxpy, LaunchConfig.forThreads(n, 128), n, 2f + round, dx, dy);
				HostBuffer result = session.allocateHost((long) n * Float.BYTES);
				session.copy(dy, result);
				session.synchronize();
				assertThat(result.getFloats(0, new float[n])[n - 1]).isEqualTo((2f + round) * (n - 1) + 1);
			}
		}
	}

	@Test
	void blasShouldRunThroughTheFfmBindingOfCublas() {
		BackendStream stream = registry.backend().devices().get(0).createStream(0);
		try {
			assertThat(stream.libraryBinding(CublasBinding.Loader.class)).isSameAs(FfmCublas.LOADER);
		}
		finally {
			stream.destroy();
		}
		float[] c = new float[4];
		try (OffloadSession session = device.openSession()) {
			// Column-major: A = [1 3; 2 4], B = [5 7; 6 8], C = 2 A B.
			DeviceBuffer a = session.allocate(16);
			DeviceBuffer b = session.allocate(16);
			DeviceBuffer result = session.allocate(16);
			session.copy(session.hostBuffer(new float[] { 1, 2, 3, 4 }), a);
			session.copy(session.hostBuffer(new float[] { 5, 6, 7, 8 }), b);
			try {
				Blas.on(session).sgemm(Transpose.NONE, Transpose.NONE, 2, 2, 2, 2f, a, 2, b, 2, 0f, result, 2);
			}
			catch (BlasUnavailableException ex) {
				assumeTrue(false, "no cuBLAS here: " + ex.getMessage());
			}
			HostBuffer host = session.allocateHost(16);
			session.copy(result, 0, host, 0, 16);
			session.synchronize();
			host.getFloats(0, c);
		}
		assertThat(c).containsExactly(46, 68, 62, 92);
	}

	@Test
	void unwrapShouldGiveTheRawStreamAndJCudasHandlesOfIt() {
		try (OffloadSession session = device.openSession()) {
			long address = session.unwrap(Long.class);
			CUstream stream = session.unwrap(CUstream.class);
			cudaStream_t runtime = session.unwrap(cudaStream_t.class);

			assertThat(address).isNotZero().isEqualTo(FfmSessions.stream(session));
			assertThat(stream.toString()).contains(Long.toHexString(address));
			assertThat(runtime.toString()).contains(Long.toString(address));
			assertThatIllegalArgumentException().isThrownBy(() -> session.unwrap(ByteBuffer.class))
				.withMessageContaining("java.lang.Long, not a java.nio.ByteBuffer");
		}
	}

	@Test
	void streamWhenUsedByJCudaShouldBelongToTheSession() {
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer buffer = session.allocate(256);
			FfmSessions.makeContextCurrent(session);
			CUdeviceptr pointer = JCudaHandles.wrap(CUdeviceptr.class, FfmSessions.devicePointer(buffer));
			int result = JCudaDriver.cuMemsetD8Async(pointer, (byte) 42, 256, session.unwrap(CUstream.class));
			assertThat(result).isZero();
			HostBuffer host = session.allocateHost(256);
			session.copy(buffer, host);
			session.synchronize();
			assertThat(host.asByteBuffer().get(255)).isEqualTo((byte) 42);
		}
	}

	@Test
	void contextShouldBeTheCurrentOneAfterMakeContextCurrent() {
		try (OffloadSession session = device.openSession()) {
			FfmSessions.makeContextCurrent(session);
			jcuda.driver.CUcontext current = new jcuda.driver.CUcontext();
			JCudaDriver.cuCtxGetCurrent(current);
			assertThat(current.toString()).contains(Long.toHexString(FfmSessions.context(session)));
		}
	}

}
