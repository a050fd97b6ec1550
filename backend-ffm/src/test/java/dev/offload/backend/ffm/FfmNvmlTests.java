package dev.offload.backend.ffm;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.offload.internal.health.Nvml;
import dev.offload.internal.health.NvmlBindingContract;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * NVML through the foreign function API against the fake library, and its account of a
 * library that does not load.
 */
class FfmNvmlTests extends NvmlBindingContract {

	@Override
	protected Nvml load(Path library) {
		return FfmNvml.load(library.toString(), NativeLibrary::load);
	}

	@Test
	void aMissingLibraryShouldBeNamedWithTheLoadersReason() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> FfmNvml.load("libnvidia-ml.so.99", NativeLibrary::load))
			.withMessageStartingWith("libnvidia-ml.so.99 could not be loaded: not found on the loader's path");
	}

	@Test
	void aLibraryThatIsNoNvmlShouldBeNamedWithWhatItLacks() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> FfmNvml.load("libc.so.6", NativeLibrary::load))
			.withMessageContaining("loaded, but lacks nvmlInit_v2, nvmlShutdown");
	}

}
