package dev.offload.backend.ffm;

import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import dev.offload.backend.cuda.CudaUnavailableException;
import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendAvailability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link FfmBackend}'s probe where the driver is missing or incomplete; they
 * need no GPU.
 */
class FfmBackendProbeTests {

	@Test
	@EnabledIf("driverMissing")
	void probeWhenLibcudaMissingShouldAnswerUnavailableNamingTheLibrary() {
		FfmBackend.Availability availability = FfmBackend.initialize(DriverLibrary::open);

		assertThat(availability.available()).isFalse();
		assertThat(availability.reason()).isEqualTo(CudaUnavailableException.Reason.NATIVES_MISSING);
		assertThat(availability.deviceCount()).isZero();
		assertThat(availability.message()).contains("libcuda.so.1")
			.contains("could not be loaded")
			.contains("LD_LIBRARY_PATH");
	}

	@Test
	@EnabledIf("driverMissing")
	void providerWhenLibcudaMissingShouldProbeUnavailableAndRefuseToCreate() {
		FfmBackendProvider provider = new FfmBackendProvider(KernelCache.create(Path.of("unused"), null));

		BackendAvailability availability = provider.probe();

		assertThat(provider.name()).isEqualTo("cuda");
		assertThat(provider.binding()).isEqualTo("ffm");
		assertThat(availability.available()).isFalse();
		assertThat(availability.message()).contains("libcuda.so.1");
		assertThatExceptionOfType(CudaUnavailableException.class).isThrownBy(provider::create)
			.withMessageContaining("libcuda.so.1")
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(CudaUnavailableException.Reason.NATIVES_MISSING));
	}

	@Test
	void resolveWhenDriverLacksFunctionsShouldNameThemAndTheCudaVersionNeeded() {
		SymbolLookup empty = (name) -> Optional.empty();

		assertThatExceptionOfType(DriverLibrary.DriverUnavailableException.class)
			.isThrownBy(() -> DriverLibrary.resolve(empty))
			.withMessageContaining("libcuda.so.1 lacks cuInit")
			.withMessageContaining("cuMemAllocAsync")
			.withMessageContaining("older than CUDA 12.0");
	}

	@Test
	void functionsShouldUseTheVersionedSymbolsOfTheCuda12Header() {
		assertThat(DriverLibrary.FUNCTIONS).containsEntry("cuMemAlloc", "cuMemAlloc_v2")
			.containsEntry("cuStreamDestroy", "cuStreamDestroy_v2")
			.containsEntry("cuEventDestroy", "cuEventDestroy_v2")
			.containsEntry("cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2")
			.containsEntry("cuMemFree", "cuMemFree_v2")
			.containsEntry("cuMemGetInfo", "cuMemGetInfo_v2")
			.containsEntry("cuStreamBeginCapture", "cuStreamBeginCapture_v2")
			.containsEntry("cuLaunchKernel", "cuLaunchKernel");
	}

	static boolean driverMissing() {
		return Files.notExists(Path.of("/dev/nvidiactl"));
	}

}
