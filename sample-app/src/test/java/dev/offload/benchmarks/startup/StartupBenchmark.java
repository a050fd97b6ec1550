package dev.offload.benchmarks.startup;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;

/**
 * Starts {@link StartupApp} in fresh JVMs, alternately with and without Offload's jars on
 * the class path, and reports the time from JVM start to ready: median, min and max of
 * each, and the difference of the medians; and the same for the CPU time of the main
 * thread until ready, which the waits for a CPU on a shared machine do not inflate.
 * <p>
 * Usage:
 * {@code java -cp <benchmarks classpath> dev.offload.benchmarks.startup.StartupBenchmark [runs] [--cds]};
 * the "without" class path is this one minus every {@code offload-*} and {@code jcuda*}
 * entry. System properties named {@code offload.*} are passed on to the applications,
 * e.g. {@code -Doffload.backend=host} on a machine with a GPU.
 * <p>
 * With {@code --cds} it also measures both with class data sharing, as Spring Boot
 * documents it: every class path entry as a jar (CDS archives classes from jars only;
 * directories are packed into temporary jars), one training run with
 * {@code -XX:ArchiveClassesAtExit}, then the measured runs with
 * {@code -XX:SharedArchiveFile}.
 */
public final class StartupBenchmark {

	private StartupBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 10;
		boolean cds = Arrays.asList(args).contains("--cds");
		String with = System.getProperty("java.class.path");
		String without = Arrays.stream(with.split(File.pathSeparator))
			.filter((entry) -> !new File(entry).getName().startsWith("offload-")
					&& !new File(entry).getName().startsWith("jcuda") && !entry.contains("/core/target/")
					&& !entry.contains("/autoconfigure/target/"))
			.collect(Collectors.joining(File.pathSeparator));
		String java = System.getProperty("java.home") + "/bin/java";
		List<Sample> withSamples = new ArrayList<>();
		List<Sample> withoutSamples = new ArrayList<>();
		System.out.println("with Offload, the registry is: " + registry(java, with));
		start(java, without, false);
		for (int i = 0; i < runs; i++) {
			withSamples.add(start(java, with, true));
			withoutSamples.add(start(java, without, false));
		}
		report("", withSamples, withoutSamples);
		if (cds) {
			measureWithCds(java, with, without, runs);
		}
	}

	private static void measureWithCds(String java, String with, String without, int runs) throws Exception {
		Path work = Files.createTempDirectory("offload-cds");
		String withJars = asJars(with, work.resolve("with"));
		String withoutJars = asJars(without, work.resolve("without"));
		Path withArchive = work.resolve("with.jsa");
		Path withoutArchive = work.resolve("without.jsa");
		run(java, withJars, true, "-XX:ArchiveClassesAtExit=" + withArchive);
		run(java, withoutJars, false, "-XX:ArchiveClassesAtExit=" + withoutArchive);
		List<Sample> withSamples = new ArrayList<>();
		List<Sample> withoutSamples = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			withSamples.add(Sample.of(run(java, withJars, true, "-XX:SharedArchiveFile=" + withArchive)));
			withoutSamples.add(Sample.of(run(java, withoutJars, false, "-XX:SharedArchiveFile=" + withoutArchive)));
		}
		report("with CDS, ", withSamples, withoutSamples);
	}

	private static void report(String prefix, List<Sample> with, List<Sample> without) {
		List<Long> withTimes = with.stream().map(Sample::millis).toList();
		List<Long> withoutTimes = without.stream().map(Sample::millis).toList();
		List<Long> withCpu = with.stream().map(Sample::cpuMillis).toList();
		List<Long> withoutCpu = without.stream().map(Sample::cpuMillis).toList();
		System.out.println(String.format(Locale.ROOT,
				"%swith Offload:    median %d ms (min %d, max %d), main thread CPU median %d ms (min %d, max %d) "
						+ "over %d runs",
				prefix, median(withTimes), min(withTimes), max(withTimes), median(withCpu), min(withCpu), max(withCpu),
				with.size()));
		System.out.println(String.format(Locale.ROOT,
				"%swithout Offload: median %d ms (min %d, max %d), main thread CPU median %d ms (min %d, max %d) "
						+ "over %d runs",
				prefix, median(withoutTimes), min(withoutTimes), max(withoutTimes), median(withoutCpu), min(withoutCpu),
				max(withoutCpu), without.size()));
		System.out.println(prefix + "starter adds (median difference): " + (median(withTimes) - median(withoutTimes))
				+ " ms, main thread CPU " + (median(withCpu) - median(withoutCpu)) + " ms");
	}

	/**
	 * Returns the class path with each directory replaced by a jar of its contents.
	 */
	private static String asJars(String classpath, Path folder) throws IOException {
		Files.createDirectories(folder);
		List<String> entries = new ArrayList<>();
		int n = 0;
		for (String entry : classpath.split(File.pathSeparator)) {
			Path path = Path.of(entry);
			if (!Files.isDirectory(path)) {
				entries.add(entry);
				continue;
			}
			Path jar = folder.resolve("dir" + (n++) + ".jar");
			try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); var files = Files.walk(path)) {
				for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
					out.putNextEntry(new JarEntry(path.relativize(file).toString().replace(File.separatorChar, '/')));
					Files.copy(file, out);
					out.closeEntry();
				}
			}
			entries.add(jar.toString());
		}
		return String.join(File.pathSeparator, entries);
	}

	private static String registry(String java, String classpath) throws Exception {
		return run(java, classpath, true).split(" ")[3];
	}

	private static Sample start(String java, String classpath, boolean expectOffload) throws Exception {
		return Sample.of(run(java, classpath, expectOffload));
	}

	private static String run(String java, String classpath, boolean expectOffload, String... jvmOptions)
			throws Exception {
		List<String> command = new ArrayList<>(List.of(java));
		command.addAll(List.of(jvmOptions));
		command.addAll(List.of("-cp", classpath));
		// Offload's settings given to this JVM (e.g. -Doffload.backend=host) reach the
		// applications measured.
		System.getProperties()
			.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith("offload."))
			.forEach((name) -> command.add("-D" + name + "=" + System.getProperty(name)));
		command.add(StartupApp.class.getName());
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String ready = null;
		Deque<String> tail = new ArrayDeque<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.startsWith("READY ")) {
					ready = line;
				}
				tail.addLast(line);
				if (tail.size() > 20) {
					tail.removeFirst();
				}
			}
		}
		process.waitFor();
		if (ready == null || !ready.endsWith("offload=" + expectOffload)) {
			throw new IllegalStateException("Startup run with " + command.subList(1, command.indexOf("-cp"))
					+ " did not report READY with offload=" + expectOffload + ": " + ready + "; its last lines:"
					+ System.lineSeparator() + String.join(System.lineSeparator(), tail));
		}
		return ready;
	}

	private static long median(List<Long> values) {
		List<Long> sorted = values.stream().sorted().toList();
		return sorted.get(sorted.size() / 2);
	}

	private static long min(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).min().orElseThrow();
	}

	private static long max(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).max().orElseThrow();
	}

	/**
	 * One start: the time from JVM start to ready, and the main thread's CPU time until
	 * then.
	 */
	private record Sample(long millis, long cpuMillis) {

		/**
		 * Reads the line {@code READY <ms> cpu=<ms> registry=... offload=...}.
		 */
		static Sample of(String ready) {
			String[] fields = ready.split(" ");
			return new Sample(Long.parseLong(fields[1]), Long.parseLong(fields[2].substring("cpu=".length())));
		}

	}

}
