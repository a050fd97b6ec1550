package dev.offload.autoconfigure.diagnostics;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.compile.KernelCompilationException;
import dev.offload.compile.NvrtcUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the failure analyses of modules from CUDA source: NVRTC absent, and source
 * that does not compile (from a canned NVRTC log), as startup failures.
 */
class KernelFailureAnalysisTests {

	static final String NVRTC_LOG = """
			options.cu(23): error: identifier "normcfd" is undefined
			      out[i] = s * normcfd(d1) - discount * normcdf(d2);
			                   ^

			1 error detected in the compilation of "options.cu".
			""";

	@Test
	void startupWhenNvrtcAbsentShouldSayWhatWasTriedWhereAndWhatToInstall() {
		new ApplicationContextRunner().withUserConfiguration(NvrtcAbsentConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new NvrtcUnavailableFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription())
				.contains("Module 'options' is CUDA C source, which Offload compiles with NVRTC")
				.contains("libnvrtc.so.13: libnvrtc.so.13: cannot open shared object file: No such file or directory")
				.contains("libnvrtc.so.12: ")
				.contains("libnvrtc.so: ")
				.contains("LD_LIBRARY_PATH (now ");
			assertThat(analysis.getAction()).contains("Install NVRTC")
				.contains("cuda-nvrtc-13-0")
				.contains("'offload.kernels.nvrtc-library'")
				.contains("precompile the kernels at build time");
		});
	}

	@Test
	void analysisWhenConfiguredLibraryMissingShouldNameTheProperty() {
		NvrtcUnavailableException cause = new NvrtcUnavailableException("options",
				Map.of("/opt/nvrtc/libnvrtc.so.13", "cannot open shared object file"), true);

		FailureAnalysis analysis = new NvrtcUnavailableFailureAnalyzer().analyze(cause);

		assertThat(analysis.getDescription()).contains("/opt/nvrtc/libnvrtc.so.13: cannot open shared object file")
			.contains("The path comes from 'offload.kernels.nvrtc-library'.");
	}

	@Test
	void analysisWhenJnaMissingShouldSayToAddIt() {
		NvrtcUnavailableException cause = new NvrtcUnavailableException("options",
				Map.of("libnvrtc.so.13",
						"not tried: JNA (net.java.dev.jna:jna, class com.sun.jna.Native) is not on " + "the classpath"),
				false);

		assertThat(new NvrtcUnavailableFailureAnalyzer().analyze(cause).getAction())
			.contains("Add net.java.dev.jna:jna");
	}

	@Test
	void startupWhenSourceDoesNotCompileShouldQuoteTheLogWithFileAndLine() {
		new ApplicationContextRunner().withUserConfiguration(BrokenKernelConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new KernelCompilationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription())
				.startsWith("The CUDA source options.cu of module 'options' does not compile for sm_90:")
				.contains("    options.cu:23: error: identifier \"normcfd\" is undefined")
				.contains("The compiler's log:")
				.contains("out[i] = s * normcfd(d1)")
				.contains("1 error detected in the compilation of \"options.cu\".");
			assertThat(analysis.getAction()).contains("Fix the source at the file and line above");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class NvrtcAbsentConfiguration {

		@Bean
		Object kernels() {
			Map<String, String> attempts = new LinkedHashMap<>();
			for (String soname : new String[] { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so" }) {
				attempts.put(soname, soname + ": cannot open shared object file: No such file or directory");
			}
			throw new NvrtcUnavailableException("options", attempts, false);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenKernelConfiguration {

		@Bean
		Object kernels() {
			throw new KernelCompilationException("options", "options.cu", "sm_90", NVRTC_LOG);
		}

	}

}
