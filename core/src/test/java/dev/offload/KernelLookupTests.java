package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.KernelRef;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link Device#kernel(KernelRef)}, which remembers the kernels it found by the
 * reference's identity, still finds each reference's own kernel, refuses once the device
 * is closed, and never remembers a kernel that does not exist.
 */
class KernelLookupTests {

	private static final List<String> NAMES = List.of("saxpy", "noop", "fail", "outOfBounds", "hold");

	private DeviceRegistry registry;

	private Device device;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
		this.device = this.registry.device(0);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void manyReferencesShouldEachFindTheirOwnKernel() {
		// More references than the device remembers, so that they share its slots.
		List<KernelRef> refs = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			refs.add(KernelRef.of(TestKernels.MODULE, NAMES.get(i % NAMES.size())));
		}
		for (int round = 0; round < 3; round++) {
			for (KernelRef ref : refs) {
				Kernel kernel = this.device.kernel(ref);
				assertThat(kernel.name()).isEqualTo(ref.name());
				assertThat(kernel.device()).isSameAs(this.device);
			}
		}
		assertThat(this.device.kernel(refs.get(0)))
			.isSameAs(this.device.loadModule(TestKernels.MODULE).kernel(refs.get(0).name()));
	}

	@Test
	void aReferenceFoundBeforeShouldBeRefusedOnceTheDeviceIsClosed() {
		KernelRef saxpy = KernelRef.of(TestKernels.MODULE, "saxpy");
		this.device.kernel(saxpy);
		this.registry.close(Duration.ofSeconds(5));
		assertThatExceptionOfType(StreamPoolClosedException.class).isThrownBy(() -> this.device.kernel(saxpy));
	}

	@Test
	void anUnknownKernelShouldBeRefusedEveryTime() {
		KernelRef sgemm = KernelRef.of(TestKernels.MODULE, "sgemm");
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(NoSuchKernelException.class).isThrownBy(() -> this.device.kernel(sgemm))
				.withMessageContaining("no kernel 'sgemm'");
		}
	}

}
