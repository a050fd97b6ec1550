package dev.offload.compile;

import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.offload.kernel.ModuleDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Compiles real CUDA C with NVRTC, through JNA; needs NVRTC's library but no GPU, and is
 * skipped with what was tried where NVRTC does not load.
 */
@ExtendWith(NvrtcAvailableCondition.class)
public class NvrtcTests {

	public static final String INCLUDING = """
			#include "axpy.cuh"
			extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
				int i = blockIdx.x * blockDim.x + threadIdx.x;
				if (i < n) {
					y[i] = axpy(a, x[i], y[i]);
				}
			}
			""";

	private static Nvrtc nvrtc;

	@BeforeAll
	static void load() {
		nvrtc = (Nvrtc) NvrtcLoader.load("(test)", System.getProperty(NvrtcAvailableCondition.LIBRARY_PROPERTY));
	}

	@Test
	void versionShouldNameNvrtcAndItsArchitectures() {
		System.out.println(
				"NVRTC: " + nvrtc.version() + ", architectures " + java.util.Arrays.toString(nvrtc.architectures()));
		assertThat(nvrtc.version()).matches("nvrtc \\d+\\.\\d+");
		assertThat(nvrtc.architectures()).contains(80, 90);
	}

	@Test
	void compileWhenKnownArchitectureShouldMakeACubinWithTheKernel() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", INCLUDING)
			.includeResource("axpy.cuh", "kernels/axpy.cuh")
			.build();

		KernelCompiler.CompiledImage image = nvrtc.compile(module.name(), module.cudaSource(), 90);

		assertThat(image.target()).isEqualTo("sm_90");
		assertThat(new String(image.image(), 0, 4, java.nio.charset.StandardCharsets.ISO_8859_1))
			.isEqualTo("\u007fELF");
		assertThat(new String(image.image(), java.nio.charset.StandardCharsets.ISO_8859_1)).contains("saxpy");
	}

	@Test
	void compileWhenUnknownArchitectureShouldMakePtxForTheNewestKnown() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy").cudaSourceResource("kernels/saxpy.cu").build();
		int[] known = nvrtc.architectures();
		int unknown = known[known.length - 1] + 1;

		KernelCompiler.CompiledImage image = nvrtc.compile(module.name(), module.cudaSource(), unknown);

		assertThat(image.target()).isEqualTo("compute_" + known[known.length - 1]);
		assertThat(new String(image.image(), java.nio.charset.StandardCharsets.US_ASCII)).contains(".entry saxpy");
	}

	@Test
	void compileWhenSourceHasAnErrorShouldQuoteNvrtcsLogWithFileAndLine() {
		ModuleDefinition module = ModuleDefinition.builder("broken").cudaSourceResource("kernels/broken.cu").build();

		assertThatExceptionOfType(KernelCompilationException.class)
			.isThrownBy(() -> nvrtc.compile(module.name(), module.cudaSource(), 90))
			.satisfies((ex) -> {
				System.out.println("NVRTC's log for broken.cu:\n" + ex.getLog());
				assertThat(ex.getDiagnostics()).first().satisfies((diagnostic) -> {
					assertThat(diagnostic.file()).isEqualTo("broken.cu");
					assertThat(diagnostic.line()).isEqualTo(6);
					assertThat(diagnostic.message()).contains("undefined_function");
				});
			})
			.withMessageContaining("broken.cu:6: error:");
	}

	@Test
	void compileWhenInvalidOptionShouldFailWithNvrtcsMessage() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy")
			.cudaSourceResource("kernels/saxpy.cu")
			.compileOptions("--no-such-option")
			.build();

		assertThatExceptionOfType(KernelCompilationException.class)
			.isThrownBy(() -> nvrtc.compile(module.name(), module.cudaSource(), 90))
			.satisfies((ex) -> System.out.println("NVRTC's log for an invalid option: " + ex.getLog()))
			.withMessageContaining("no-such-option");
	}

	@Test
	void precompileWhenArchitecturesShouldWriteOneCubinEach(
			@org.junit.jupiter.api.io.TempDir java.nio.file.Path output) {
		ModuleDefinition module = ModuleDefinition.builder("saxpy").cudaSourceResource("kernels/saxpy.cu").build();

		List<java.nio.file.Path> written = new KernelPrecompiler(output, List.of(80, 90), nvrtc).precompile(module);

		assertThat(written).hasSize(2).allSatisfy((file) -> assertThat(file).isNotEmptyFile());
		assertThat(written.get(1).toString()).endsWith("/sm_90.cubin");
	}

}
