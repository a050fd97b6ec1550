package dev.offload.backend.cuda;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a scenario's {@code main} in a JVM of its own, with this JVM's class path: for GPU
 * tests whose sticky error would ruin a device's primary context for the rest of the test
 * process, or that need another environment.
 */
final class ChildJvm {

	/** A bound that only a hung child reaches; not a timing. */
	private static final long EXIT_BOUND_SECONDS = 120;

	private ChildJvm() {
	}

	/**
	 * Runs {@code main} and prints its output framed by {@code title}.
	 * @param title what the scenario is, for the log
	 * @param main the scenario's class, with a {@code main} method
	 * @param environment variables added to the child's environment
	 * @param args the scenario's arguments
	 * @return how the child ended and what it printed
	 */
	static Result run(String title, Class<?> main, Map<String, String> environment, String... args) throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		List<String> command = new ArrayList<>(List.of(java));
		command.addAll(List.of(CudaTestBackends.childJvmOptions()));
		command.addAll(List.of("-cp", classPath(), main.getName()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(environment);
		Process child = builder.start();
		CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
			try {
				return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
		boolean exited = child.waitFor(EXIT_BOUND_SECONDS, TimeUnit.SECONDS);
		if (!exited) {
			child.destroyForcibly();
		}
		String text = output.get(10, TimeUnit.SECONDS);
		System.out.println("--- " + title + " (child JVM) ---\n" + text + "--- end of scenario ---");
		return new Result(exited, exited ? child.exitValue() : -1, text);
	}

	private static String classPath() {
		String explicit = System.getProperty("offload.test.classpath");
		if (explicit != null) {
			return explicit;
		}
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null) ? surefire : System.getProperty("java.class.path");
	}

	/**
	 * How a child JVM ended.
	 *
	 * @param exited whether it exited before the bound
	 * @param exitCode its exit code, -1 if it was killed
	 * @param output what it printed, standard output and error together
	 */
	record Result(boolean exited, int exitCode, String output) {

	}

}
