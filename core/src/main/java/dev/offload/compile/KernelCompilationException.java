package dev.offload.compile;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.offload.OffloadException;

/**
 * Thrown when a module's CUDA C source does not compile: carries NVRTC's log and the
 * errors it names by file and line.
 */
public class KernelCompilationException extends OffloadException {

	private static final Pattern DIAGNOSTIC = Pattern
		.compile("^(.+?)\\((\\d+)\\): (error|warning|catastrophic error)[^:]*: (.*)$", Pattern.MULTILINE);

	private final String module;

	private final String sourceName;

	private final String target;

	private final String log;

	private final List<Diagnostic> diagnostics;

	/**
	 * Creates an exception from a compiler's log.
	 * @param module the module's name
	 * @param sourceName the source's file name
	 * @param target the architecture compiled for, e.g. {@code sm_90}
	 * @param log the compiler's log
	 */
	public KernelCompilationException(String module, String sourceName, String target, String log) {
		super(message(module, sourceName, target, log));
		this.module = module;
		this.sourceName = sourceName;
		this.target = target;
		this.log = log.strip();
		this.diagnostics = diagnostics(log);
	}

	private static String message(String module, String sourceName, String target, String log) {
		List<Diagnostic> errors = diagnostics(log).stream().filter(Diagnostic::isError).toList();
		String first = errors.isEmpty() ? log.strip().lines().findFirst().orElse("no log") : errors.get(0).toString();
		return "CUDA source " + sourceName + " of module '" + module + "' does not compile for " + target + ": " + first
				+ ((errors.size() > 1) ? " (and " + (errors.size() - 1) + " more errors)" : "");
	}

	/**
	 * Reads the {@code file(line): error: message} lines of a compiler log.
	 * @param log NVRTC's or nvcc's log
	 * @return the diagnostics, in log order
	 */
	static List<Diagnostic> diagnostics(String log) {
		List<Diagnostic> diagnostics = new ArrayList<>();
		Matcher matcher = DIAGNOSTIC.matcher(log);
		while (matcher.find()) {
			diagnostics.add(new Diagnostic(matcher.group(1).strip(), Integer.parseInt(matcher.group(2)),
					matcher.group(3), matcher.group(4).strip()));
		}
		return List.copyOf(diagnostics);
	}

	/**
	 * Returns the module's name.
	 * @return the name
	 */
	public String getModule() {
		return this.module;
	}

	/**
	 * Returns the source's file name.
	 * @return e.g. {@code options.cu}
	 */
	public String getSourceName() {
		return this.sourceName;
	}

	/**
	 * Returns the architecture the source was compiled for.
	 * @return e.g. {@code sm_90}
	 */
	public String getTarget() {
		return this.target;
	}

	/**
	 * Returns the compiler's whole log.
	 * @return the log
	 */
	public String getLog() {
		return this.log;
	}

	/**
	 * Returns the errors and warnings the log names by file and line.
	 * @return the diagnostics, in log order
	 */
	public List<Diagnostic> getDiagnostics() {
		return this.diagnostics;
	}

	/**
	 * One error or warning of a compiler log.
	 *
	 * @param file the file it is in (the source or an include)
	 * @param line the line, from 1
	 * @param severity {@code error}, {@code warning} or {@code catastrophic error}
	 * @param message the compiler's text
	 */
	public record Diagnostic(String file, int line, String severity, String message) {

		/**
		 * Tells whether this stops the compilation.
		 * @return {@code true} for an error
		 */
		public boolean isError() {
			return this.severity.contains("error");
		}

		@Override
		public String toString() {
			return this.file + ":" + this.line + ": " + this.severity + ": " + this.message;
		}

	}

}
