package dev.offload.autoconfigure.diagnostics;

import java.util.Map;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.compile.NvrtcUnavailableException;

/**
 * Reports that a module from CUDA C source had to compile and NVRTC could not be loaded:
 * each library tried and the loader's reason, where it looked, and what to install or
 * set.
 */
final class NvrtcUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<NvrtcUnavailableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, NvrtcUnavailableException cause) {
		StringBuilder description = new StringBuilder("Module '").append(cause.getModule())
			.append("' is CUDA C source, which Offload compiles with NVRTC (CUDA's run-time compiler), and NVRTC "
					+ "could not be loaded. Tried:");
		for (Map.Entry<String, String> attempt : cause.getAttempts().entrySet()) {
			description.append(System.lineSeparator())
				.append("    ")
				.append(attempt.getKey())
				.append(": ")
				.append(attempt.getValue());
		}
		description.append(System.lineSeparator())
			.append(cause.isConfigured() ? "The path comes from 'offload.kernels.nvrtc-library'."
					: "Sonames are searched on the dynamic loader's path: LD_LIBRARY_PATH (now "
							+ describe(System.getenv("LD_LIBRARY_PATH")) + "), the ld.so cache and /usr/lib.");
		String action = cause.getAttempts().values().stream().anyMatch((reason) -> reason.contains("JNA"))
				? "Add net.java.dev.jna:jna to the application (offload-spring-boot-starter brings it)."
				: "Install NVRTC from the CUDA toolkit of the driver's major version (e.g. the package "
						+ "cuda-nvrtc-13-0, or libnvrtc.so.13 from the CUDA 13 toolkit, which the nvidia/cuda "
						+ "runtime images include) and put its directory on LD_LIBRARY_PATH; or set "
						+ "'offload.kernels.nvrtc-library' to the library's path; or precompile the kernels at "
						+ "build time (KernelPrecompiler) so that this machine compiles nothing.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

	private static String describe(String value) {
		return (value == null || value.isBlank()) ? "unset" : "'" + value + "'";
	}

}
