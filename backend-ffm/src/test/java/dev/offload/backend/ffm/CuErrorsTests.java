package dev.offload.backend.ffm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.offload.BackendException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link CuErrors}, without the driver (its names come from the table).
 */
class CuErrorsTests {

	@ParameterizedTest
	@ValueSource(ints = { 700, 702, 719, 716, 715, 714, 717, 718, 710, 214, 220, 709, 911 })
	void isStickyShouldHoldForTheErrorsThatLeaveTheContextUnusable(int result) {
		assertThat(CuErrors.isSticky(result)).isTrue();
		assertThat(CuErrors.error("cuStreamSynchronize", result, 0).getMessage())
			.endsWith("; the device is unusable until the process restarts");
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 2, 100, 201, 400, 500, 600, 701, 801, 999 })
	void isStickyShouldNotHoldForOtherErrors(int result) {
		assertThat(CuErrors.isSticky(result)).isFalse();
	}

	@Test
	void errorShouldNameTheCallTheErrorAndTheDevice() {
		BackendException error = CuErrors.error("cuMemAlloc(1024 bytes)", CuErrors.CUDA_ERROR_OUT_OF_MEMORY, 3);

		assertThat(error.getCall()).isEqualTo("cuMemAlloc(1024 bytes)");
		assertThat(error.getErrorName()).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
		assertThat(error.getDeviceId()).isEqualTo(3);
		assertThat(error.isOutOfMemory()).isTrue();
		assertThat(error.isSticky()).isFalse();
		assertThat(error.getMessage())
			.startsWith("cuMemAlloc(1024 bytes) failed on device 3: CUDA_ERROR_OUT_OF_MEMORY");
	}

	@Test
	void errorNameOfAnUnknownCodeShouldGiveTheCode() {
		assertThat(CuErrors.errorName(12345)).isEqualTo("CUresult 12345");
	}

	@Test
	void isDoneShouldReadSuccessAsDoneAndNotReadyAsPending() {
		assertThat(CuErrors.isDone("cuStreamQuery", CuErrors.CUDA_SUCCESS, 0)).isTrue();
		assertThat(CuErrors.isDone("cuStreamQuery", CuErrors.CUDA_ERROR_NOT_READY, 0)).isFalse();
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> CuErrors.isDone("cuStreamQuery", CuErrors.CUDA_ERROR_ILLEGAL_ADDRESS, 1))
			.satisfies((ex) -> {
				assertThat(ex.isSticky()).isTrue();
				assertThat(ex.getErrorName()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
			});
	}

	@Test
	void checkQuietlyShouldReportFailureWithoutThrowing() {
		assertThat(CuErrors.checkQuietly("cuStreamDestroy", CuErrors.CUDA_ERROR_INVALID_HANDLE, 0)).isFalse();
		assertThat(CuErrors.checkQuietly("cuStreamDestroy", CuErrors.CUDA_SUCCESS, 0)).isTrue();
	}

}
