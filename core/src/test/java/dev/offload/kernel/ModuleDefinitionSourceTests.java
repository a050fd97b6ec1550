package dev.offload.kernel;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ModuleDefinition}s from CUDA C source.
 */
class ModuleDefinitionSourceTests {

	private static final String SAXPY = """
			#include "common.cuh"
			extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) { }
			""";

	private static final HostKernel NOTHING = (thread) -> {
	};

	@Test
	void buildWhenSourceShouldDeclareItsKernelsParameters() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.include("common.cuh", "#define ONE 1")
			.compileOptions("--use_fast_math")
			.build();

		assertThat(module.hasCudaSource()).isTrue();
		assertThat(module.hasImage()).isFalse();
		assertThat(module.declaredKernels()).containsExactly("saxpy");
		assertThat(module.declaredParameters("saxpy")).containsExactly(ParamKind.INT32, ParamKind.FLOAT32,
				ParamKind.POINTER, ParamKind.POINTER);
		assertThat(module.cudaSource().includes()).containsEntry("common.cuh", "#define ONE 1");
		assertThat(module.cudaSource().options()).containsExactly("--use_fast_math");
		assertThat(module.imageSource()).isEqualTo("source saxpy.cu");
	}

	@Test
	void buildWhenHostKernelWithoutParametersShouldTakeThemFromSource() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.hostKernel("saxpy", NOTHING)
			.build();

		assertThat(module.hostKernels().get("saxpy").parameters()).containsExactly(ParamKind.INT32, ParamKind.FLOAT32,
				ParamKind.POINTER, ParamKind.POINTER);
	}

	@Test
	void buildWhenHostKernelParametersDifferFromSourceShouldFail() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.hostKernel("saxpy", List.of(ParamKind.INT32, ParamKind.POINTER), NOTHING);

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("Host kernel 'saxpy' of module 'saxpy' is declared with [INT32, POINTER]")
			.withMessageContaining("saxpy.cu declares [INT32, FLOAT32, POINTER, POINTER]");
	}

	@Test
	void buildWhenHostKernelNotInSourceShouldNameTheSourcesKernels() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.hostKernel("sxapy", NOTHING);

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("Host kernel 'sxapy'")
			.withMessageContaining("its kernels are [saxpy]");
	}

	@Test
	void buildWhenHostKernelWithoutParametersAndNoSourceShouldFail() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("host").hostKernel("k", NOTHING);

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("no CUDA source to read them from");
	}

	@Test
	void buildWhenBuilderReusedWithOtherSourceShouldDeclareOnlyTheNewKernels() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("reused").cudaSource("saxpy.cu", SAXPY);
		builder.build();

		ModuleDefinition second = builder
			.cudaSource("scale.cu", "extern \"C\" __global__ void scale(int n, float* x) { }")
			.build();

		assertThat(second.declaredKernels()).containsExactly("scale");
	}

	@Test
	void buildWhenSourceResourceShouldReadItAndNameTheFile() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy").cudaSourceResource("kernels/saxpy.cu").build();

		assertThat(module.cudaSource().name()).isEqualTo("saxpy.cu");
		assertThat(module.cudaSource().text()).contains("__global__ void saxpy");
		assertThat(module.imageSource()).isEqualTo("classpath:kernels/saxpy.cu");
	}

	@Test
	void buildWhenSourceResourceMissingShouldNameIt() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("typo").cudaSourceResource("kernels/sxapy.cu");

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("CUDA source of module 'typo', classpath:kernels/sxapy.cu, does not exist");
	}

	@Test
	void buildWhenIncludeResourceMissingShouldNameIt() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.includeResource("common.cuh", "kernels/common.cuh");

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("include 'common.cuh' of module 'saxpy', classpath:kernels/common.cuh");
	}

	@Test
	void buildWhenSourceAndImageShouldAskForOne() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("both")
			.cudaSource("saxpy.cu", SAXPY)
			.image(".version 8.0".getBytes());

		assertThatIllegalArgumentException().isThrownBy(builder::build).withMessageContaining("give one");
	}

	@Test
	void compileOptionsWhenArchitectureShouldFailAtBuild() {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("arch")
			.cudaSource("saxpy.cu", SAXPY)
			.compileOptions("--gpu-architecture=sm_80");

		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessageContaining("the backend compiles for the device's own");
	}

}
