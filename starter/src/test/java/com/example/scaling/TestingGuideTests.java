package com.example.scaling;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java block of {@code docs/testing.md} is, character for character, a source file
 * of this package without its package line: the page shows code that compiles and whose
 * tests pass.
 */
class TestingGuideTests {

	private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);

	private static final Pattern TYPE = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?class\\s+(\\w+)");

	private static final String PACKAGE_LINE = "package com.example.scaling;\n\n";

	@Test
	void javaBlocksShouldBeTheSourcesOfThisPackage() throws IOException {
		Path root = projectRoot();
		List<String> shown = new ArrayList<>();
		Matcher block = JAVA_BLOCK.matcher(Files.readString(root.resolve("docs/testing.md"), StandardCharsets.UTF_8));
		while (block.find()) {
			Matcher type = TYPE.matcher(block.group(1));
			assertThat(type.find()).as("a class in the block %s", block.group(1)).isTrue();
			Path source = root.resolve("starter/src/test/java/com/example/scaling/" + type.group(1) + ".java");
			assertThat(source).as("the source of the block's %s", type.group(1)).isRegularFile();
			String code = Files.readString(source, StandardCharsets.UTF_8);
			assertThat(code).startsWith(PACKAGE_LINE);
			assertThat(block.group(1)).as("docs/testing.md's %s", type.group(1))
				.isEqualTo(code.substring(PACKAGE_LINE.length()));
			shown.add(type.group(1));
		}
		assertThat(shown).contains("ScalingService", "ScalingServiceTests", "DeviceLossTests", "FullPoolTests",
				"BackendContractTests");
	}

	private static Path projectRoot() {
		for (Path candidate = Path.of("").toAbsolutePath(); candidate != null; candidate = candidate.getParent()) {
			if (Files.isRegularFile(candidate.resolve("docs/testing.md"))) {
				return candidate;
			}
		}
		throw new IllegalStateException("No docs/testing.md above " + Path.of("").toAbsolutePath());
	}

}
