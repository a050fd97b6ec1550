package dev.offload.backend.ffm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.compile.NvrtcUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for how {@link Nvrtc} looks for NVRTC and says why it found none.
 */
class NvrtcLoadingTests {

	@TempDir
	Path directory;

	@Test
	void loadWhenNoSonameOpensShouldListEachWithTheLoadersPath() {
		assertThatExceptionOfType(NvrtcUnavailableException.class)
			.isThrownBy(() -> Nvrtc.load("saxpy", null, (name) -> {
				throw new IllegalArgumentException("Cannot open library: " + name);
			}))
			.satisfies((ex) -> {
				assertThat(ex.getModule()).isEqualTo("saxpy");
				assertThat(ex.isConfigured()).isFalse();
				assertThat(ex.getAttempts()).containsOnlyKeys("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");
				assertThat(ex.getAttempts().get("libnvrtc.so.13"))
					.isEqualTo("not found on the loader's path (LD_LIBRARY_PATH, ld.so.cache) "
							+ "(Cannot open library: libnvrtc.so.13)");
				assertThat(ex.getMessage()).contains("tried libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so");
			});
	}

	@Test
	void loadWhenConfiguredLibraryIsMissingShouldTryOnlyItAndSaySo() {
		String configured = this.directory.resolve("libnvrtc.so.13").toString();

		assertThatExceptionOfType(NvrtcUnavailableException.class)
			.isThrownBy(() -> Nvrtc.load("saxpy", configured, NvrtcLoadingTests::open))
			.satisfies((ex) -> {
				assertThat(ex.isConfigured()).isTrue();
				assertThat(ex.getAttempts()).containsOnlyKeys(configured);
				assertThat(ex.getAttempts().get(configured)).startsWith("no such file");
			});
	}

	@Test
	void loadWhenConfiguredFileIsNoLibraryShouldSayTheLoaderRefusedIt() throws IOException {
		Path file = Files.writeString(this.directory.resolve("libnvrtc.so.13"), "not an ELF file");

		assertThatExceptionOfType(NvrtcUnavailableException.class)
			.isThrownBy(() -> Nvrtc.load("saxpy", file.toString(), NvrtcLoadingTests::open))
			.satisfies((ex) -> assertThat(ex.getAttempts().get(file.toString()))
				.startsWith("the file exists but the dynamic loader refused it"));
	}

	@Test
	void loadWhenLibraryLacksNvrtcFunctionsShouldNameThem() {
		assertThatExceptionOfType(NvrtcUnavailableException.class)
			.isThrownBy(() -> Nvrtc.load("saxpy", null, (name) -> (symbol) -> Optional.empty()))
			.satisfies((ex) -> assertThat(ex.getAttempts().get("libnvrtc.so.13")).startsWith("loaded, but lacks")
				.contains("nvrtcCompileProgram"));
	}

	@Test
	void targetShouldPreferTheDevicesCubinElsePtxOfTheNewestArchitectureBelowIt() {
		int[] known = { 75, 80, 86, 89, 90, 100, 120 };

		assertThat(Nvrtc.target(known, 90)).isEqualTo("sm_90");
		assertThat(Nvrtc.target(known, 87)).isEqualTo("compute_86");
		assertThat(Nvrtc.target(known, 70)).isEqualTo("compute_75");
	}

	private static SymbolLookup open(String name) {
		return SymbolLookup.libraryLookup(Path.of(name), Arena.global());
	}

}
