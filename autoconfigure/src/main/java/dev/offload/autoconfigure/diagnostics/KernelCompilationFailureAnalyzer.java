package dev.offload.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.offload.compile.KernelCompilationException;

/**
 * Reports a module whose CUDA C source does not compile: its errors by file and line, and
 * NVRTC's whole log.
 */
final class KernelCompilationFailureAnalyzer extends AbstractFailureAnalyzer<KernelCompilationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, KernelCompilationException cause) {
		String newLine = System.lineSeparator();
		StringBuilder description = new StringBuilder("The CUDA source ").append(cause.getSourceName())
			.append(" of module '")
			.append(cause.getModule())
			.append("' does not compile for ")
			.append(cause.getTarget())
			.append(':');
		cause.getDiagnostics()
			.stream()
			.filter(KernelCompilationException.Diagnostic::isError)
			.forEach((error) -> description.append(newLine).append("    ").append(error));
		description.append(newLine).append("The compiler's log:").append(newLine);
		cause.getLog().lines().forEach((line) -> description.append("    ").append(line).append(newLine));
		String action = "Fix the source at the file and line above (an include is named by the name it was added "
				+ "with in ModuleDefinition.Builder.include), or correct its compileOptions; then restart.";
		return new FailureAnalysis(description.toString().stripTrailing(), action, cause);
	}

}
