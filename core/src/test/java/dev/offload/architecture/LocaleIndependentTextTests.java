package dev.offload.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Text that Offload formats (messages, meter tags, property values, reports) is the same
 * on every machine: {@code String.format}, {@code printf} and case conversions name
 * {@code Locale.ROOT}, since the default locale turns {@code "I".toLowerCase()} into a
 * dotless i in Turkish and {@code "%.1f"} into {@code 1,5} in German. Scans the main code
 * of every module of the build.
 */
class LocaleIndependentTextTests {

	// A call that formats or converts case with the default locale.
	private static final Pattern DEFAULT_LOCALE = Pattern.compile(
			"String\\.format\\((?!\\s*Locale\\.)|\\.printf\\((?!\\s*Locale\\.)|\\.formatted\\(|\\.to(Lower|Upper)Case\\(\\s*\\)");

	@Test
	void mainCodeWhenFormattingTextShouldNameLocaleRoot() throws IOException {
		Path root = Path.of("..").toAbsolutePath().normalize();
		assertThat(root.resolve("core/src/main/java")).as("the build's root, from core's directory").isDirectory();
		List<String> offences = new ArrayList<>();
		try (Stream<Path> modules = Files.list(root)) {
			modules.map((module) -> module.resolve("src/main/java"))
				.filter(Files::isDirectory)
				.forEach((sources) -> scan(root, sources, offences));
		}
		assertThat(offences).as("calls that use the default locale (name Locale.ROOT)").isEmpty();
	}

	private static void scan(Path root, Path sources, List<String> offences) {
		try (Stream<Path> files = Files.walk(sources)) {
			files.filter((file) -> file.toString().endsWith(".java")).forEach((file) -> {
				List<String> lines = read(file);
				for (int i = 0; i < lines.size(); i++) {
					String line = lines.get(i).strip();
					boolean comment = line.startsWith("*") || line.startsWith("//") || line.startsWith("/*");
					if (!comment && DEFAULT_LOCALE.matcher(line).find()) {
						offences.add(root.relativize(file) + ":" + (i + 1) + ": " + line);
					}
				}
			});
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> read(Path file) {
		try {
			return Files.readAllLines(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
