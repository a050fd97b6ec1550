package dev.offload.backend.cuda;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kernel that writes out of bounds fails its device with a sticky error, and the JVM lives on. The kernel runs in a
 * child JVM ({@link OutOfBoundsScenario}), because a sticky error ruins the device's primary context for the rest of
 * its process, which would fail every later GPU test of this one. It runs in both of JCuda's exception modes, switched
 * in the child once its registry has started.
 */
@GpuTests
class CudaDeviceFailureGpuTests {

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void launchWhenKernelWritesOutOfBoundsShouldFailTheDeviceAndNotCrashTheJvm(JCudaExceptionMode mode)
			throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process child = new ProcessBuilder(java, "-cp", classPath(), OutOfBoundsScenario.class.getName(), mode.name())
			.redirectErrorStream(true)
			.start();
		CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
			try {
				return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		});
		boolean exited = child.waitFor(120, TimeUnit.SECONDS);
		if (!exited) {
			child.destroyForcibly();
		}
		String text = output.get(10, TimeUnit.SECONDS);
		System.out.println("--- out-of-bounds scenario (child JVM) ---\n" + text + "--- end of scenario ---");
		assertThat(exited).as("the child JVM exited").isTrue();
		assertThat(child.exitValue()).as("the child JVM's exit code").isZero();
		assertThat(text).contains("MODE=" + mode)
			.contains("SYNCHRONIZE_ERROR=CUDA_ERROR_ILLEGAL_ADDRESS sticky=true")
			.contains("MESSAGE=cuStreamSynchronize failed on device 0: CUDA_ERROR_ILLEGAL_ADDRESS")
			.contains("HEALTHY=false")
			.contains("OPEN_SESSION=DeviceFailedException Device 0 has failed")
			.contains("REGISTRY_CLOSED=true")
			.contains("JVM_ALIVE=true");
	}

	private static String classPath() {
		String explicit = System.getProperty("offload.test.classpath");
		if (explicit != null) {
			return explicit;
		}
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null) ? surefire : System.getProperty("java.class.path");
	}

}
