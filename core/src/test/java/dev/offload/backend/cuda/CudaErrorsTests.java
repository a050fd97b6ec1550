package dev.offload.backend.cuda;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import jcuda.driver.CUresult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link CudaErrors}; they need no GPU (error names fall back to JCuda's table
 * without natives).
 */
class CudaErrorsTests {

	@Test
	void checkWhenSuccessShouldNotThrow() {
		CudaErrors.check("cuStreamQuery", CUresult.CUDA_SUCCESS, 0);
	}

	@Test
	void checkWhenIllegalAddressShouldThrowStickyErrorNamingCallAndDevice() {
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> CudaErrors.check("cuStreamSynchronize", CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, 3))
			.satisfies((ex) -> {
				assertThat(ex.getCall()).isEqualTo("cuStreamSynchronize");
				assertThat(ex.getErrorName()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
				assertThat(ex.getDeviceId()).isEqualTo(3);
				assertThat(ex.isSticky()).isTrue();
			})
			.withMessageStartingWith("cuStreamSynchronize failed on device 3: CUDA_ERROR_ILLEGAL_ADDRESS");
	}

	@Test
	void checkWhenInvalidValueShouldThrowNonStickyError() {
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> CudaErrors.check("cuLaunchKernel", CUresult.CUDA_ERROR_INVALID_VALUE, 0))
			.satisfies((ex) -> assertThat(ex.isSticky()).isFalse())
			.withMessageContaining("CUDA_ERROR_INVALID_VALUE");
	}

	@Test
	void isStickyWhenContextCorruptingErrorsShouldBeTrue() {
		assertThat(List.of(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, CUresult.CUDA_ERROR_LAUNCH_FAILED,
				CUresult.CUDA_ERROR_MISALIGNED_ADDRESS, CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
				CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR, CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE,
				CUresult.CUDA_ERROR_INVALID_PC, CUresult.CUDA_ERROR_ASSERT, CUresult.CUDA_ERROR_ECC_UNCORRECTABLE,
				CUresult.CUDA_ERROR_LAUNCH_TIMEOUT))
			.allSatisfy((result) -> assertThat(CudaErrors.isSticky(result)).as(CUresult.stringFor(result)).isTrue());
	}

	@Test
	void isStickyWhenRecoverableErrorsShouldBeFalse() {
		assertThat(List.of(CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_OUT_OF_MEMORY,
				CUresult.CUDA_ERROR_NOT_READY, CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
				CUresult.CUDA_ERROR_INVALID_PTX, CUresult.CUDA_ERROR_NOT_FOUND))
			.allSatisfy((result) -> assertThat(CudaErrors.isSticky(result)).as(CUresult.stringFor(result)).isFalse());
	}

}
