package dev.offload.compile;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link NvrtcLoader} and the architecture {@link Nvrtc} compiles for, runnable
 * without NVRTC.
 */
class NvrtcLoaderTests {

	@Test
	void candidatesWhenNothingConfiguredShouldBeTheSonamesNewestFirst() {
		assertThat(NvrtcLoader.candidates(null)).containsExactly("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");
		assertThat(NvrtcLoader.candidates(" ")).isEqualTo(NvrtcLoader.SONAMES);
	}

	@Test
	void candidatesWhenConfiguredShouldBeThatLibraryAlone() {
		assertThat(NvrtcLoader.candidates("/opt/cuda/lib64/libnvrtc.so.13"))
			.containsExactly("/opt/cuda/lib64/libnvrtc.so.13");
	}

	@Test
	void loadWhenConfiguredLibraryMissingShouldNameItAndWhy() {
		assertThatExceptionOfType(NvrtcUnavailableException.class)
			.isThrownBy(() -> NvrtcLoader.load("options", "/nonexistent/libnvrtc.so.13"))
			.satisfies((ex) -> {
				assertThat(ex.getModule()).isEqualTo("options");
				assertThat(ex.isConfigured()).isTrue();
				assertThat(ex.getAttempts()).containsOnlyKeys("/nonexistent/libnvrtc.so.13");
				assertThat(ex.getAttempts().get("/nonexistent/libnvrtc.so.13")).isNotBlank();
			})
			.withMessageContaining("module 'options'")
			.withMessageContaining("tried /nonexistent/libnvrtc.so.13");
	}

	@Test
	void targetWhenNvrtcKnowsTheArchitectureShouldBeItsCubin() {
		assertThat(Nvrtc.target(new int[] { 75, 80, 86, 89, 90, 100, 120 }, 90)).isEqualTo("sm_90");
	}

	@Test
	void targetWhenNvrtcDoesNotKnowTheArchitectureShouldBePtxOfTheNewestBelow() {
		assertThat(Nvrtc.target(new int[] { 75, 80, 86, 89, 90 }, 100)).isEqualTo("compute_90");
		assertThat(Nvrtc.target(new int[] { 75, 80, 86, 89, 90 }, 87)).isEqualTo("compute_86");
	}

	@Test
	void targetWhenDeviceOlderThanEveryKnownShouldBePtxOfTheOldestKnown() {
		assertThat(Nvrtc.target(new int[] { 75, 80 }, 60)).isEqualTo("compute_75");
	}

}
