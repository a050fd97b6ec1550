package dev.offload.backend.cuda;

import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kernel that writes out of bounds fails its device with a sticky error, and the JVM
 * lives on. The kernel runs in a child JVM ({@link OutOfBoundsScenario}), because a
 * sticky error ruins the device's primary context for the rest of its process, which
 * would fail every later GPU test of this one. It runs in both of JCuda's exception
 * modes, switched in the child once its registry has started.
 */
@GpuTests
class CudaDeviceFailureGpuTests {

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void launchWhenKernelWritesOutOfBoundsShouldFailTheDeviceAndNotCrashTheJvm(JCudaExceptionMode mode)
			throws Exception {
		ChildJvm.Result child = ChildJvm.run("out-of-bounds scenario", OutOfBoundsScenario.class, Map.of(),
				mode.name());
		assertThat(child.exited()).as("the child JVM exited").isTrue();
		assertThat(child.exitCode()).as("the child JVM's exit code").isZero();
		String text = child.output();
		assertThat(text).contains("MODE=" + mode)
			.contains("SYNCHRONIZE_ERROR=CUDA_ERROR_ILLEGAL_ADDRESS sticky=true")
			.contains("MESSAGE=cuStreamSynchronize failed on device 0: CUDA_ERROR_ILLEGAL_ADDRESS")
			.contains("HEALTHY=false")
			.contains("OPEN_SESSION=DeviceFailedException Device 0 has failed")
			.contains("REGISTRY_CLOSED=true")
			.contains("JVM_ALIVE=true");
	}

}
