package dev.offload.compile;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link KernelCompilationException}, from NVRTC's log format.
 */
class KernelCompilationExceptionTests {

	// NVRTC 13.0's log for a kernel that calls an undeclared function and whose include
	// misspells a type.
	static final String NVRTC_LOG = """
			common.cuh(3): error: identifier "flaot" is undefined
			  typedef flaot real;
			          ^

			broken.cu(7): error: identifier "undefined_function" is undefined
			      y[i] = undefined_function(x[i]);
			             ^

			broken.cu(9): warning #177-D: variable "unused" was declared but never referenced
			      int unused;
			          ^

			2 errors detected in the compilation of "broken.cu".
			""";

	@Test
	void diagnosticsWhenNvrtcLogShouldNameFileLineAndSeverity() {
		KernelCompilationException exception = new KernelCompilationException("broken", "broken.cu", "sm_90",
				NVRTC_LOG);

		assertThat(exception.getDiagnostics()).extracting(Object::toString)
			.containsExactly("common.cuh:3: error: identifier \"flaot\" is undefined",
					"broken.cu:7: error: identifier \"undefined_function\" is undefined",
					"broken.cu:9: warning: variable \"unused\" was declared but never referenced");
		assertThat(exception.getDiagnostics().get(1).line()).isEqualTo(7);
		assertThat(exception.getDiagnostics().get(2).isError()).isFalse();
	}

	@Test
	void messageWhenErrorsShouldQuoteTheFirstWithFileAndLine() {
		KernelCompilationException exception = new KernelCompilationException("broken", "broken.cu", "sm_90",
				NVRTC_LOG);

		assertThat(exception.getMessage()).isEqualTo("CUDA source broken.cu of module 'broken' does not compile for "
				+ "sm_90: common.cuh:3: error: identifier \"flaot\" is undefined (and 1 more errors)");
		assertThat(exception.getLog()).startsWith("common.cuh(3)").endsWith("\"broken.cu\".");
	}

	@Test
	void messageWhenLogHasNoFileLineShouldQuoteItsFirstLine() {
		KernelCompilationException exception = new KernelCompilationException("m", "m.cu", "sm_90",
				"nvrtc: error: invalid value for --gpu-architecture (-arch)\n");

		assertThat(exception.getDiagnostics()).isEmpty();
		assertThat(exception.getMessage())
			.endsWith("sm_90: nvrtc: error: invalid value for --gpu-architecture (-arch)");
	}

}
