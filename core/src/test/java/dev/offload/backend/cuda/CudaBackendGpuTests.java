package dev.offload.backend.cuda;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import jcuda.driver.CUcontext;
import jcuda.driver.JCudaDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.DeviceInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Discovery, contexts, modules and raw handles of the CUDA backend on a real device, in
 * the run's JCuda exception mode ({@link JCudaExceptionMode#configured()}), switched once
 * the registry started.
 */
@GpuTests
class CudaBackendGpuTests {

	private static DeviceRegistry registry;

	private static Device device;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		device = registry.device(0);
		JCudaExceptionMode.configured().apply();
	}

	@AfterAll
	static void closeRegistry() {
		if (registry != null) {
			registry.close();
		}
	}

	@Test
	void infoWhenDiscoveredShouldDescribeTheDevice() {
		DeviceInfo info = device.info();
		System.out.println("Device 0: " + info + ", " + CudaTestBackends.probe().message());
		assertThat(device.backendName()).isEqualTo(CudaBackend.NAME);
		assertThat(info.name()).isNotBlank();
		assertThat(info.computeCapabilityMajor()).isGreaterThanOrEqualTo(7);
		assertThat(info.totalMemoryBytes()).isPositive();
		assertThat(info.multiprocessorCount()).isPositive();
		assertThat(info.leastPriority()).isZero();
		assertThat(info.greatestPriority()).isLessThan(0);
	}

	@Test
	void makeCurrentWhenAnotherThreadUsesTheDeviceShouldSetItsContextThere() throws Exception {
		CudaTestBackends.assumeJCudaBinding("CudaSessions.context and JCuda's current context");
		CUcontext expected = CompletableFuture.supplyAsync(() -> {
			try (OffloadSession session = device.openSession()) {
				session.fill(session.allocate(64), (byte) 1);
				CUcontext current = new CUcontext();
				JCudaDriver.cuCtxGetCurrent(current);
				assertThat(current).isEqualTo(CudaSessions.context(session));
				return current;
			}
		}).get();
		assertThat(expected).isNotEqualTo(new CUcontext());
	}

	@Test
	void makeContextCurrentWhenThreadSwitchedContextShouldRestoreIt() {
		CudaTestBackends.assumeJCudaBinding("CudaSessions.context and JCuda's current context");
		try (OffloadSession session = device.openSession()) {
			session.fill(session.allocate(64), (byte) 1);
			JCudaDriver.cuCtxSetCurrent(new CUcontext());
			CudaSessions.makeContextCurrent(session);
			CUcontext current = new CUcontext();
			JCudaDriver.cuCtxGetCurrent(current);
			assertThat(current).isEqualTo(CudaSessions.context(session));
			session.fill(session.allocate(64), (byte) 2);
			session.synchronize();
		}
	}

	@Test
	void loadModuleWhenPtxShouldReadParametersFromTheEntry() {
		Kernel saxpy = TestKernels.saxpy(device);
		// PTX cannot tell pointers from 64-bit integers; the CUDA C declaration can.
		ParamKind pointer = TestKernels.FROM_SOURCE ? ParamKind.POINTER : ParamKind.INT64;
		assertThat(saxpy.parameters()).containsExactly(ParamKind.INT32, ParamKind.FLOAT32, pointer, pointer);
		assertThat(device.loadModule(TestKernels.SPIN).kernelNames()).containsExactly("spinUntilReleased", "spinFor");
		assertThat(TestKernels.spin(device).parameters()).containsExactly(ParamKind.POINTER, ParamKind.POINTER,
				ParamKind.INT64);
	}

	@Test
	void loadModuleWhenCubinWithSignatureShouldRunTheKernel() {
		ModuleDefinition cubin = ModuleDefinition.builder("saxpy-cubin")
			.imageResource("kernels/saxpy.cubin")
			.signature("saxpy", ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER)
			.build();
		Kernel saxpy = device.loadModule(cubin).kernel("saxpy");
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer x = session.allocate(4 * Float.BYTES);
			DeviceBuffer y = session.allocate(4 * Float.BYTES);
			session.copy(session.hostBuffer(new float[] { 1, 2, 3, 4 }), x);
			session.copy(session.hostBuffer(new float[] { 10, 20, 30, 40 }), y);
			session.launch(saxpy, LaunchConfig.of(1, 32), 4, 2f, x, y);
			HostBuffer result = session.allocateHost(4 * Float.BYTES);
			session.copy(y, result);
			session.synchronize();
			assertThat(result.getFloats(0, new float[4])).containsExactly(12f, 24f, 36f, 48f);
		}
	}

	@Test
	void loadModuleWhenCubinWithoutSignaturesShouldThrowAskingForThem() {
		ModuleDefinition cubin = ModuleDefinition.builder("saxpy-cubin-undeclared")
			.imageResource("kernels/saxpy.cubin")
			.build();
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> device.loadModule(cubin))
			.satisfies((ex) -> assertThat(ex.getErrorName()).isEqualTo("OFFLOAD_NO_KERNELS_DECLARED"))
			.withMessageContaining("ModuleDefinition.Builder.signature");
		assertThat(device.isHealthy()).isTrue();
	}

	@Test
	void loadModuleWhenPtxIsInvalidShouldThrowNamingTheModuleAndKeepDeviceHealthy() {
		ModuleDefinition broken = ModuleDefinition.builder("broken")
			.image(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry broken() { this is not ptx }\n"
				.getBytes())
			.build();
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> device.loadModule(broken))
			.satisfies((ex) -> assertThat(ex.isSticky()).isFalse())
			.withMessageContaining("cuModuleLoadData(broken");
		assertThat(device.isHealthy()).isTrue();
	}

}
