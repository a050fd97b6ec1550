package dev.offload.blas;

import org.junit.jupiter.api.Test;

import dev.offload.internal.blas.CublasStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Finding cuBLAS, and the failure's account of what was tried, without a GPU.
 */
class CublasLoaderTests {

	@Test
	void theSonamesShouldBeCuda13sThen12s() {
		assertThat(CublasLoader.candidates(null)).containsExactly("libcublas.so.13", "libcublas.so.12");
		assertThat(CublasLoader.candidates("  ")).containsExactly("libcublas.so.13", "libcublas.so.12");
		assertThat(CublasLoader.candidates(" /opt/cuda/lib64/libcublas.so.13 "))
			.containsExactly("/opt/cuda/lib64/libcublas.so.13");
	}

	@Test
	void aConfiguredLibraryThatDoesNotLoadShouldBeNamedWithTheLoadersReason() {
		assertThatExceptionOfType(BlasUnavailableException.class)
			.isThrownBy(() -> CublasLoader.load("/nonexistent/libcublas.so.13"))
			.satisfies((ex) -> {
				assertThat(ex.isConfigured()).isTrue();
				assertThat(ex.getLibrary()).isEqualTo("cuBLAS");
				assertThat(ex.getAttempts()).containsOnlyKeys("/nonexistent/libcublas.so.13");
				assertThat(ex.getAttempts().get("/nonexistent/libcublas.so.13")).isNotBlank()
					.doesNotContain("Unable to load library");
				assertThat(ex).hasMessageContaining("cuBLAS is needed for a BLAS call")
					.hasMessageContaining("/nonexistent/libcublas.so.13");
			});
	}

	@Test
	void aLibraryThatIsNoCublasShouldBeRefused() {
		// libc loads, but has no cublasGetProperty.
		assertThatExceptionOfType(BlasUnavailableException.class).isThrownBy(() -> CublasLoader.load("libc.so.6"))
			.satisfies((ex) -> assertThat(ex.getAttempts().get("libc.so.6")).contains("cublasGetProperty"));
	}

	@Test
	void statusNamesShouldBeKnownWithoutTheLibrary() {
		assertThat(CublasStatus.name(13)).isEqualTo("CUBLAS_STATUS_EXECUTION_FAILED");
		assertThat(CublasStatus.name(99)).isEqualTo("CUBLAS_STATUS_99");
	}

}
