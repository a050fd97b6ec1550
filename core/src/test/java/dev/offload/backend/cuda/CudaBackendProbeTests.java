package dev.offload.backend.cuda;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link CudaBackend#probe()} and {@link CudaBackend#create()} that run
 * everywhere, GPU or not.
 */
class CudaBackendProbeTests {

	@Test
	void probeWhenCalledTwiceShouldAnswerTheSameWithoutThrowing() {
		CudaAvailability first = CudaBackend.probe();
		assertThat(CudaBackend.probe()).isSameAs(first);
		assertThat(first.message()).isNotBlank();
		if (first.available()) {
			assertThat(first.reason()).isNull();
			assertThat(first.deviceCount()).isPositive();
		}
		else {
			assertThat(first.reason()).isNotNull();
			assertThat(first.deviceCount()).isZero();
		}
	}

	@Test
	void createWhenCudaUnavailableShouldThrowNamingTheReason() {
		CudaAvailability availability = CudaBackend.probe();
		assumeFalse(availability.available(), "CUDA is available here");
		assertThatExceptionOfType(CudaUnavailableException.class).isThrownBy(CudaBackend::create)
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(availability.reason()))
			.withMessage(availability.message());
	}

	@Test
	void probeWhenNativesMissingShouldSayWhichLibraryFailed() {
		CudaAvailability availability = CudaBackend.probe();
		assumeTrue(availability.reason() == CudaUnavailableException.Reason.NATIVES_MISSING, "natives load here");
		assertThat(availability.message()).containsAnyOf("native library could not load", "not on the classpath");
		assertThat(availability.cause()).isInstanceOf(LinkageError.class);
	}

	@Test
	void probeWithoutNvidiaDriverShouldNotLoadTheNatives() {
		assumeFalse(java.nio.file.Files.exists(java.nio.file.Path.of("/dev/nvidiactl")), "an NVIDIA driver is here");
		CudaAvailability availability = CudaBackend.probe();
		assertThat(availability.available()).isFalse();
		assertThat(availability.reason()).isEqualTo(CudaUnavailableException.Reason.NO_DEVICE);
		assertThat(availability.message()).contains("/dev/nvidiactl does not exist");
		assertThat(CudaDriver.isLoaded()).isFalse();
	}

}
