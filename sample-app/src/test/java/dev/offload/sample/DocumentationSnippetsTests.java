package dev.offload.sample;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block of the user documentation compiles as shown, against the
 * sample app's test class path (the starter, Spring Boot web and actuator, JCuda).
 * <p>
 * How blocks are compiled: each block is one compilation unit (imports and types
 * included, no statements outside a type), in the default package. The blocks of one page
 * are compiled together, in one javac run, so a later block may use a type an earlier
 * block of the same page declares (the guide's {@code Scaler.SCALE}); type names are
 * unique within a page. Nothing is added around a block. Blocks that are not Java (logs,
 * shell) are fenced with another language.
 */
class DocumentationSnippetsTests {

	private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|record|interface|enum|@interface)\\s+(\\w+)");

	@TempDir
	Path classes;

	@ParameterizedTest
	@ValueSource(strings = { "README.md", "docs/guide.md", "docs/first-hour.md" })
	void javaBlocksShouldCompileAsShown(String page) throws IOException {
		Path file = projectRoot().resolve(page);
		List<Snippet> snippets = javaBlocks(page, Files.readString(file, StandardCharsets.UTF_8));
		assertThat(snippets).as("java blocks in %s", page).isNotEmpty();
		assertThat(compile(snippets)).as("javac errors in %s", page).isEmpty();
	}

	@Test
	void compileShouldReportAnUndefinedNameAtItsLineInThePage() {
		String page = "Intro\n\n```java\nclass Broken {\n\n\tint twice() {\n\t\treturn 2 * undefinedValue;\n\t}\n\n}\n```\n";
		List<String> errors = compile(javaBlocks("broken.md", page));
		assertThat(errors).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.startsWith("broken.md:7: ")
			.contains("undefinedValue");
	}

	private static Path projectRoot() {
		Path module = Path.of("").toAbsolutePath();
		for (Path candidate = module; candidate != null; candidate = candidate.getParent()) {
			if (Files.isRegularFile(candidate.resolve("README.md")) && Files.isDirectory(candidate.resolve("docs"))) {
				return candidate;
			}
		}
		throw new IllegalStateException("No README.md with a docs folder above " + module);
	}

	private static List<Snippet> javaBlocks(String page, String markdown) {
		List<Snippet> snippets = new ArrayList<>();
		Matcher matcher = JAVA_BLOCK.matcher(markdown);
		while (matcher.find()) {
			// The block's first line, 1-based, in the page.
			int firstLine = (int) markdown.substring(0, matcher.start(1)).chars().filter((c) -> c == '\n').count() + 1;
			snippets.add(new Snippet(page, firstLine, matcher.group(1)));
		}
		return snippets;
	}

	private List<String> compile(List<Snippet> snippets) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		List<String> options = List.of("-classpath", testClassPath(), "-d", this.classes.toString(), "-proc:none",
				"-Xlint:none", "-nowarn");
		boolean compiled = compiler.getTask(null, null, diagnostics, options, null, snippets).call();
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				Snippet snippet = (Snippet) diagnostic.getSource();
				long line = snippet.firstLine + diagnostic.getLineNumber() - 1;
				errors.add(snippet.page + ":" + line + ": " + diagnostic.getMessage(Locale.ROOT));
			}
		}
		assertThat(compiled).as("javac's result agrees with its errors %s", errors).isEqualTo(errors.isEmpty());
		return errors;
	}

	/**
	 * Surefire puts the test class path in a manifest-only jar and gives it in full in
	 * this property.
	 */
	private static String testClassPath() {
		String classPath = System.getProperty("surefire.test.class.path");
		return (classPath != null && !classPath.isBlank()) ? classPath : System.getProperty("java.class.path", "");
	}

	/**
	 * One block, as a source file named after its public type, if any.
	 */
	static final class Snippet extends SimpleJavaFileObject {

		private final String page;

		private final int firstLine;

		private final String code;

		Snippet(String page, int firstLine, String code) {
			super(URI.create("string:///" + fileName(firstLine, code)), Kind.SOURCE);
			this.page = page;
			this.firstLine = firstLine;
			this.code = code;
		}

		private static String fileName(int firstLine, String code) {
			Matcher publicType = PUBLIC_TYPE.matcher(code);
			return (publicType.find() ? publicType.group(1) : "Snippet" + firstLine) + ".java";
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
