package dev.offload.compile;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.kernel.CudaSource;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link KernelPrecompiler}, with a fake compiler.
 */
class KernelPrecompilerTests {

	@TempDir
	Path output;

	@Test
	void modulesWhenClassHasStaticDefinitionsShouldTakeThoseWithSourceOnly() throws Exception {
		assertThat(KernelPrecompiler.modules(Kernels.class)).extracting(ModuleDefinition::name)
			.containsExactlyInAnyOrder("first", "second");
	}

	@Test
	void precompileWhenArchitecturesShouldWriteEachCubinWhereTheCacheLooks() {
		KernelCacheTests.CountingCompiler compiler = new KernelCacheTests.CountingCompiler("nvrtc 13.0");

		List<Path> written = new KernelPrecompiler(this.output, List.of(80, 90), compiler).precompile(Kernels.FIRST);

		String key = KernelCache.sourceKey(Kernels.FIRST.cudaSource());
		assertThat(written).containsExactly(this.output.resolve(KernelCache.packagedResource(key, 80)),
				this.output.resolve(KernelCache.packagedResource(key, 90)));
		assertThat(written.get(1)).hasContent("image 2 for sm_90");
	}

	@Test
	void precompileWhenCompilerDoesNotKnowAnArchitectureShouldSkipIt() {
		KernelCompiler ptxAbove90 = new KernelCompiler() {

			@Override
			public String version() {
				return "nvrtc 12.0";
			}

			@Override
			public CompiledImage compile(String module, CudaSource source, int architecture) {
				String target = (architecture > 90) ? "compute_90" : "sm_" + architecture;
				return new CompiledImage(target.getBytes(StandardCharsets.UTF_8), target);
			}

		};

		List<Path> written = new KernelPrecompiler(this.output, List.of(90, 100), ptxAbove90).precompile(Kernels.FIRST);

		assertThat(written).singleElement().satisfies((file) -> assertThat(file.toString()).endsWith("sm_90.cubin"));
	}

	static final class Kernels {

		static final ModuleDefinition FIRST = ModuleDefinition.builder("first")
			.cudaSource("first.cu", "extern \"C\" __global__ void first(int n) { }")
			.build();

		private static final ModuleDefinition SECOND = ModuleDefinition.builder("second")
			.cudaSource("second.cu", "extern \"C\" __global__ void second(float* x) { }")
			.build();

		static final ModuleDefinition HOST_ONLY = ModuleDefinition.builder("host")
			.hostKernel("host", List.of(ParamKind.INT32), (thread) -> {
			})
			.build();

		final ModuleDefinition notStatic = FIRST;

	}

}
