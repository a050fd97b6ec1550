package dev.offload.backend.ffm;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.runtime.cudaStream_t;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JCudaHandles}: JCuda's handle objects made around raw addresses, with
 * JCuda's classes only (no natives, no GPU).
 */
class JCudaHandlesTests {

	@Test
	void wrapShouldCarryTheAddressIntoJCudasHandle() {
		CUstream stream = JCudaHandles.wrap(CUstream.class, 0x7f12_3456_7000L);

		assertThat(stream.toString()).contains("0x7f1234567000");
		assertThat(new cudaStream_t(stream).toString()).as("the runtime API's view of the same stream")
			.contains("nativePointer=" + 0x7f12_3456_7000L);
	}

	@Test
	void wrapShouldMakeContextsAndDevicePointersToo() {
		assertThat(JCudaHandles.wrap(CUcontext.class, 0x1000L).toString()).contains("0x1000");
		assertThat(JCudaHandles.wrap(CUdeviceptr.class, 0x2000L).toString()).contains("0x2000");
	}

	@Test
	void isJCudaTypeShouldRecognizeOnlyJCudasHandles() {
		assertThat(JCudaHandles.isJCudaType(CUstream.class)).isTrue();
		assertThat(JCudaHandles.isJCudaType(CUdeviceptr.class)).isTrue();
		assertThat(JCudaHandles.isJCudaType(Long.class)).isFalse();
	}

	@Test
	void wrapWhenTypeIsNoHandleShouldSaySo() {
		assertThatIllegalArgumentException().isThrownBy(() -> JCudaHandles.wrap(String.class, 1L))
			.withMessageContaining("Cannot make a java.lang.String of address 0x1");
	}

}
