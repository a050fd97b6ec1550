package dev.offload.backend.cuda;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link CudaSessions} that need no GPU.
 */
class CudaSessionsTests {

	@Test
	void streamWhenSessionIsOnHostBackendShouldThrowNamingTheBackend() {
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
				OffloadSession session = registry.openSession()) {
			assertThatIllegalArgumentException().isThrownBy(() -> CudaSessions.stream(session))
				.withMessageContaining("host backend, not cuda");
			assertThatIllegalArgumentException().isThrownBy(() -> CudaSessions.context(session))
				.withMessageContaining("host backend, not cuda");
		}
	}

}
