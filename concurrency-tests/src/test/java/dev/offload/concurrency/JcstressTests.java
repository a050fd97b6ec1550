package dev.offload.concurrency;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.concurrency.lincheck.CheckMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the jcstress tests as jcstress runs them, in forked JVMs on this test's classpath:
 * briefly in the quick mode (one fork, 2 s per test and JVM configuration; jcstress 0.16
 * still runs each test with and without biased locking), jcstress's {@code quick} preset
 * in the long mode.
 */
@Tag("stress")
class JcstressTests {

	@Test
	void stressTestsWhenRunShouldObserveNoForbiddenOutcome() throws IOException, InterruptedException {
		Path results = Path.of("target", "jcstress-results").toAbsolutePath();
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
						System.getProperty("java.class.path"), "org.openjdk.jcstress.Main", "-r", results.toString()));
		if (CheckMode.current() == CheckMode.QUICK) {
			command.addAll(List.of("-jvmArgs", "-Xmx256m", "-sc", "false", "-f", "1", "-iters", "1", "-time", "2000"));
		}
		else {
			command.addAll(List.of("-m", "quick"));
		}
		Path log = Files.createDirectories(results).resolve("output.txt");
		// In the results folder: jcstress also writes its binary result file to the
		// working directory.
		Process process = new ProcessBuilder(command).directory(results.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		// A guard against a hung fork, not a timing: the quick run takes about a minute.
		boolean ended = process.waitFor(30, TimeUnit.MINUTES);
		if (!ended) {
			process.destroyForcibly();
		}
		String output = Files.readString(log, StandardCharsets.UTF_8);
		assertThat(ended).as("jcstress ended").isTrue();
		assertThat(output).as("jcstress's report in %s", log).contains("RUN RESULTS:");
		assertThat(process.exitValue()).as("jcstress's exit status; its report:%n%s", tail(output)).isZero();
		assertThat(output).contains("Failed tests: No matches.").contains("Error tests: No matches.");
	}

	private static String tail(String output) {
		int start = output.indexOf("RUN RESULTS:");
		return (start >= 0) ? output.substring(start) : output;
	}

}
