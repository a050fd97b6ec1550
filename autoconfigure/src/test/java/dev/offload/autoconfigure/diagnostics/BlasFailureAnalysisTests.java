package dev.offload.autoconfigure.diagnostics;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.blas.BlasUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure analysis of a BLAS call that could not load its library.
 */
class BlasFailureAnalysisTests {

	@Test
	void missingCublasShouldListWhatWasTriedAndWhatToInstallOrSet() {
		Map<String, String> attempts = new LinkedHashMap<>();
		attempts.put("libcublas.so.13", "libcublas.so.13: cannot open shared object file: No such file or directory");
		attempts.put("libcublas.so.12", "libcublas.so.12: cannot open shared object file: No such file or directory");
		FailureAnalysis analysis = new BlasUnavailableFailureAnalyzer()
			.analyze(new BlasUnavailableException("cuBLAS", attempts, false));
		assertThat(analysis.getDescription()).contains("A BLAS call needs cuBLAS")
			.contains("    libcublas.so.13: libcublas.so.13: cannot open shared object file")
			.contains("    libcublas.so.12: ")
			.contains("LD_LIBRARY_PATH");
		assertThat(analysis.getAction()).contains("libcublas.so.13").contains("'offload.blas.library'");
	}

	@Test
	void aConfiguredPathShouldBeNamedAsSuch() {
		FailureAnalysis analysis = new BlasUnavailableFailureAnalyzer().analyze(new BlasUnavailableException("cuBLAS",
				Map.of("/opt/libcublas.so.13", "cannot open shared object file"), true));
		assertThat(analysis.getDescription()).contains("The path comes from 'offload.blas.library'.");
	}

	@Test
	void missingEjmlShouldSayWhatToAdd() {
		FailureAnalysis analysis = new BlasUnavailableFailureAnalyzer().analyze(new BlasUnavailableException("EJML",
				Map.of("org.ejml:ejml-fdense and org.ejml:ejml-ddense", "not on the classpath"), false));
		assertThat(analysis.getAction()).contains("org.ejml:ejml-fdense").contains("offload-test");
	}

}
