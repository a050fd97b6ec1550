package dev.offload.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.offload.autoconfigure.OffloadProperties.BackendType;
import dev.offload.autoconfigure.diagnostics.InvalidOffloadConfigurationException;
import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BackendFactory}, with stand-ins for the CUDA backend.
 */
@ExtendWith(OutputCaptureExtension.class)
class BackendFactoryTests {

	@Test
	void backendWhenAutoAndCudaUsableShouldBeCuda(CapturedOutput output) {
		Backend backend = factory(BackendType.AUTO, FakeCudaBackends.Usable.class).create();
		assertThat(backend.name()).isEqualTo("cuda");
		assertThat(output).doesNotContain("Offload uses the host backend");
	}

	@Test
	void backendWhenAutoAndNoGpuShouldBeHostAndSayWhy(CapturedOutput output) {
		Backend backend = factory(BackendType.AUTO, FakeCudaBackends.NoDevice.class).create();
		assertThat(backend).isInstanceOf(HostBackend.class);
		assertThat(output).containsOnlyOnce("Offload uses the host backend (devices emulated on the CPU): cuInit "
				+ "failed: CUDA_ERROR_NO_DEVICE");
		backend.close();
	}

	@Test
	void backendWhenAutoAndCudaFailsToStartShouldBeHostAndSayWhy(CapturedOutput output) {
		Backend backend = factory(BackendType.AUTO, FakeCudaBackends.FailingCreate.class).create();
		assertThat(backend).isInstanceOf(HostBackend.class);
		assertThat(output).containsOnlyOnce("the CUDA backend could not start: IllegalStateException: "
				+ "cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY");
		backend.close();
	}

	@Test
	void backendWhenCudaAndNoGpuShouldFailNamingTheReason() {
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory(BackendType.CUDA, FakeCudaBackends.NoDevice.class).create())
			.withMessage("Invalid value 'cuda' for 'offload.backend': CUDA is not usable: cuInit failed: "
					+ "CUDA_ERROR_NO_DEVICE")
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("offload.backend"));
	}

	@Test
	void backendWhenCudaAndNativesMissingShouldFailNamingTheReason() {
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory(BackendType.CUDA, FakeCudaBackends.ThrowingProbe.class).create())
			.withMessageContaining("CUDA is not usable: UnsatisfiedLinkError: no JCudaDriver-12.0.0-linux-x86_64");
	}

	@Test
	void backendWhenCudaFailsToStartShouldFailWithTheCause() {
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> factory(BackendType.CUDA, FakeCudaBackends.FailingCreate.class).create())
			.withMessageContaining("CUDA_ERROR_OUT_OF_MEMORY")
			.withCauseInstanceOf(IllegalStateException.class);
	}

	@Test
	void backendWhenCudaAndNotOnClasspathShouldFailNamingTheMissingClass() {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(BackendType.CUDA);
		assertThatExceptionOfType(InvalidOffloadConfigurationException.class)
			.isThrownBy(() -> new BackendFactory(properties, null, "JCuda is not on the classpath").create())
			.withMessageEndingWith("CUDA is not usable: JCuda is not on the classpath");
	}

	@Test
	void backendWhenHostShouldNotProbeCuda() {
		BackendFactory factory = factory(BackendType.HOST, FakeCudaBackends.ThrowingProbe.class);
		assertThat(factory.choose()).isEqualTo(new BackendFactory.Choice(BackendType.HOST, null));
	}

	@Test
	void probeWhenItAnswersWithABooleanShouldBeUnderstood() {
		CudaBackendSupport support = new CudaBackendSupport(FakeCudaBackends.BooleanProbe.class);
		assertThat(support.probe().usable()).isTrue();
		assertThat(support.create()).isInstanceOf(FakeCudaBackends.BooleanProbe.class);
	}

	@Test
	void probeWhenTheClassHasNoProbeShouldReportUnusable() {
		assertThat(new CudaBackendSupport(Object.class).probe().reason())
			.isEqualTo("NoSuchMethodException: dev.offload.backend.cuda.CudaBackend has no static probe()");
	}

	private static BackendFactory factory(BackendType type, Class<?> cudaBackend) {
		OffloadProperties properties = new OffloadProperties();
		properties.setBackend(type);
		return new BackendFactory(properties, new CudaBackendSupport(cudaBackend), null);
	}

}
