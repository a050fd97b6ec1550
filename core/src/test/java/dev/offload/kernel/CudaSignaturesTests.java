package dev.offload.kernel;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static dev.offload.kernel.ParamKind.FLOAT32;
import static dev.offload.kernel.ParamKind.FLOAT64;
import static dev.offload.kernel.ParamKind.INT32;
import static dev.offload.kernel.ParamKind.INT64;
import static dev.offload.kernel.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link CudaSignatures}.
 */
class CudaSignaturesTests {

	@Test
	void parseWhenExternCKernelShouldMapEachParameter() {
		Map<String, List<ParamKind>> kernels = CudaSignatures.parse("saxpy.cu",
				"extern \"C\" __global__ void saxpy(int n, float a, const float* x, float* y) { }");

		assertThat(kernels).containsExactly(Map.entry("saxpy", List.of(INT32, FLOAT32, POINTER, POINTER)));
	}

	@Test
	void parseWhenEveryScalarSpellingShouldMapToItsKind() {
		String source = """
				extern "C" __global__ void all(unsigned u, unsigned int ui, int32_t i32, uint32_t u32,
				        long long ll, unsigned long long ull, size_t size, int64_t i64, uint64_t u64, long l,
				        float f, double d, const double* __restrict__ in, volatile int * flag, double out[],
				        const int c, unsigned long long) { }
				""";

		assertThat(CudaSignatures.parse("all.cu", source).get("all")).containsExactly(INT32, INT32, INT32, INT32, INT64,
				INT64, INT64, INT64, INT64, INT64, FLOAT32, FLOAT64, POINTER, POINTER, POINTER, INT32, INT64);
	}

	@Test
	void parseWhenExternCBlockShouldReadItsKernelsOnly() {
		String source = """
				__global__ void mangled(int n) { }
				extern "C" {
				__global__ void first(double* out) { if (out) { out[0] = 1; } }
				__global__ void __launch_bounds__(256) second(int n, float* x) { }
				}
				__global__ void alsoMangled(float* x) { }
				""";

		assertThat(CudaSignatures.parse("block.cu", source)).containsExactly(Map.entry("first", List.of(POINTER)),
				Map.entry("second", List.of(INT32, POINTER)));
	}

	@Test
	void parseWhenDeviceFunctionsAndCommentsShouldSkipThem() {
		String source = """
				// extern "C" __global__ void commented(int n) { }
				__device__ double square(double x) { return x * x; }
				/* extern "C" __global__ void alsoCommented(char c) { } */
				extern "C" __global__ void empty() { }
				extern "C" __global__ void voidList(void) { }
				""";

		assertThat(CudaSignatures.parse("c.cu", source)).containsExactly(Map.entry("empty", List.of()),
				Map.entry("voidList", List.of()));
	}

	@Test
	void parseWhenParameterHasNoKindShouldNameKernelParameterAndLine() {
		String source = """
				// A comment line.
				extern "C" __global__ void ok(int n) { }

				extern "C" __global__ void bad(int n, short s) { }
				""";

		assertThatIllegalArgumentException().isThrownBy(() -> CudaSignatures.parse("bad.cu", source))
			.withMessageContaining("Kernel 'bad' (bad.cu:4)")
			.withMessageContaining("parameter 1 'short s'");
	}

	@Test
	void kindWhenStructByValueOrReferenceShouldHaveNone() {
		assertThat(CudaSignatures.kind("Params p")).isNull();
		assertThat(CudaSignatures.kind("const float& x")).isNull();
		assertThat(CudaSignatures.kind("char c")).isNull();
		assertThat(CudaSignatures.kind("bool flag")).isNull();
	}

	@Test
	void parseWhenSampleSourceShouldMatchItsHandWrittenParameters() {
		String source = """
				extern "C" __global__ void monte_carlo(int pathsPerThread, double s, double k, double t, double r,
				        double v, long long seed, double* out)
				{
				}
				""";

		assertThat(CudaSignatures.parse("options.cu", source).get("monte_carlo")).containsExactly(INT32, FLOAT64,
				FLOAT64, FLOAT64, FLOAT64, FLOAT64, INT64, POINTER);
	}

}
