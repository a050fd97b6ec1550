package dev.offload.backend.ffm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.offload.blas.CublasBindingContract;
import dev.offload.internal.blas.CublasBinding;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * cuBLAS through the foreign function API against the fake library, and its account of
 * libraries that do not load.
 */
class FfmCublasTests extends CublasBindingContract {

	@Override
	protected CublasBinding.@Nullable Loader backendLoader() {
		return FfmCublas.LOADER;
	}

	@Test
	void aLibraryThatIsNoCublasShouldBeNamedWithWhatItLacks() {
		Map<String, String> attempts = new LinkedHashMap<>();
		assertThat(FfmCublas.LOADER.open(List.of("libc.so.6"), attempts)).isNull();
		assertThat(attempts.get("libc.so.6")).startsWith("loaded, but lacks cublasGetProperty, cublasCreate_v2")
			.endsWith("(not cuBLAS 12 or later)");
	}

	@Test
	void librariesThatDoNotLoadShouldEachSayWhy() {
		Map<String, String> attempts = new LinkedHashMap<>();
		assertThat(FfmCublas.LOADER.open(List.of("libcublas.so.99", "/nonexistent/libcublas.so.13"), attempts))
			.isNull();
		assertThat(attempts).containsOnlyKeys("libcublas.so.99", "/nonexistent/libcublas.so.13");
		assertThat(attempts.get("libcublas.so.99")).startsWith("not found on the loader's path");
		assertThat(attempts.get("/nonexistent/libcublas.so.13")).startsWith("no such file");
	}

}
