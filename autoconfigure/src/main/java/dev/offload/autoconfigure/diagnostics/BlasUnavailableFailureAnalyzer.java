package dev.offload.autoconfigure.diagnostics;

import java.util.Map;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.blas.BlasUnavailableException;

/**
 * Reports that a BLAS call during startup could not load cuBLAS (or, on the host
 * emulation, EJML): each library tried and the loader's reason, where it looked, and what
 * to install or set.
 */
final class BlasUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<BlasUnavailableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BlasUnavailableException cause) {
		StringBuilder description = new StringBuilder("A BLAS call needs ").append(cause.getLibrary())
			.append(", which could not be loaded. Tried:");
		for (Map.Entry<String, String> attempt : cause.getAttempts().entrySet()) {
			description.append(System.lineSeparator())
				.append("    ")
				.append(attempt.getKey())
				.append(": ")
				.append(attempt.getValue());
		}
		if ("EJML".equals(cause.getLibrary())) {
			return new FailureAnalysis(description.toString(),
					"Add org.ejml:ejml-fdense and org.ejml:ejml-ddense (the versions offload-dependencies manages; "
							+ "offload-test brings them to tests) to run BLAS calls on the host emulation.",
					cause);
		}
		description.append(System.lineSeparator())
			.append(cause.isConfigured() ? "The path comes from 'offload.blas.library'."
					: "Sonames are searched on the dynamic loader's path: LD_LIBRARY_PATH (now "
							+ describe(System.getenv("LD_LIBRARY_PATH")) + "), the ld.so cache and /usr/lib.");
		String action = cause.getAttempts().values().stream().anyMatch((reason) -> reason.contains("JNA"))
				? "Add net.java.dev.jna:jna to the application (offload-spring-boot-starter brings it)."
				: "Install cuBLAS of the driver's CUDA major version (e.g. the package libcublas-13-0, or "
						+ "libcublas.so.13 from the CUDA 13 toolkit, which the nvidia/cuda runtime images include) and "
						+ "put its directory on LD_LIBRARY_PATH; or set 'offload.blas.library' to the library's path.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

	private static String describe(String value) {
		return (value == null || value.isBlank()) ? "unset" : "'" + value + "'";
	}

}
