package dev.offload.benchmarks;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.internal.VirtualThreads;
import dev.offload.kernel.LaunchConfig;

/**
 * Requests that each run one session with a short kernel, all in flight at once: one
 * virtual thread per request against a fixed pool of platform threads doing the same
 * work. Every request waits for its kernel in {@code close()}: on a virtual thread that
 * wait parks (the device's completion thread wakes it); on a platform thread it
 * synchronizes in the driver. Reports, per mode and round, the throughput, the latency
 * from submission to done of the light and the other requests, and the
 * {@code jdk.VirtualThreadPinned} events a JFR recording saw (all, and those whose stack
 * passes through Offload), then checks the targets on the medians of the measured rounds
 * (a round lasts a fraction of a second, so one round says little): virtual-thread
 * throughput and light p99 at least as good as the platform pool's, and no pinned event
 * from Offload in any measured round.
 * <p>
 * Needs Java 21+ for the virtual threads. Usage:
 * {@code java -cp ... dev.offload.benchmarks.VirtualThreadBenchmark
 * [options]}, options in {@link Options#USAGE}.
 */
public final class VirtualThreadBenchmark {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private final Options options;

	private final PrintStream out;

	private final List<String> offloadPins = new ArrayList<>();

	VirtualThreadBenchmark(Options options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	/**
	 * Runs the benchmark; exits with 0 when the measured rounds met the targets, 1 when
	 * they missed one, 2 on bad options or a runtime without virtual threads.
	 * @param args the options
	 * @throws Exception if a request failed
	 */
	public static void main(String[] args) throws Exception {
		Options options = CommandLine.parse(args, Options.USAGE, Options::from);
		if (!VirtualThreads.isSupported()) {
			System.err.println("Virtual threads need Java 21+; this is Java " + Runtime.version());
			System.exit(2);
			return;
		}
		boolean met = new VirtualThreadBenchmark(options, System.out).run();
		System.exit(met ? 0 : 1);
	}

	/**
	 * Runs both modes for every round and prints the table and the targets.
	 * @return whether the measured rounds met the targets
	 */
	boolean run() throws Exception {
		this.out.printf(Locale.ROOT, "# Virtual threads against a platform pool (%s backend, Java %s)%n%n",
				this.options.backend(), Runtime.version().feature());
		this.out.printf(Locale.ROOT,
				"%d requests in flight, %d µs kernel (light: %d µs, one in %d), platform pool of %d threads, "
						+ "stream pool max %s, %d measured round(s) after %d of warm-up, %d CPUs, virtual-thread "
						+ "scheduler parallelism %s%n%n",
				this.options.requests(), this.options.kernelMicros(), this.options.lightMicros(),
				this.options.lightEvery(), this.options.platformThreads(),
				(this.options.maxStreams() == 0) ? "unbounded" : this.options.maxStreams(), this.options.rounds(),
				this.options.warmup(), Runtime.getRuntime().availableProcessors(),
				System.getProperty("jdk.virtualThreadScheduler.parallelism", "the default (one per CPU)"));
		this.out.println("| round | mode | requests/s | p50 | p99 | light p50 | light p99 | pinned (all) "
				+ "| pinned (Offload) |");
		this.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
		StreamPoolConfig pool = StreamPoolConfig.DEFAULTS.withMaxSize(this.options.maxStreams())
			.withBorrowTimeout(Duration.ofMinutes(5));
		List<Result> platform = new ArrayList<>();
		List<Result> virtual = new ArrayList<>();
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(this.options.backend(), 0))
			.deviceIds(List.of(0))
			.streamPool(pool)
			.build()) {
			Device device = registry.device(0);
			Kernel spin = device.loadModule(SpinKernel.definition()).kernel(SpinKernel.NAME);
			int warmup = this.options.warmup();
			for (int round = 1 - warmup; round <= this.options.rounds(); round++) {
				String name = (round < 1) ? "warm-up " + (round + warmup) : String.valueOf(round);
				Result onPlatform = measure(device, spin, Executors.newFixedThreadPool(this.options.platformThreads()));
				print(name, "platform " + this.options.platformThreads(), onPlatform);
				Result onVirtual = measure(device, spin, newVirtualThreadPerTaskExecutor());
				print(name, "virtual", onVirtual);
				if (round >= 1) {
					platform.add(onPlatform);
					virtual.add(onVirtual);
				}
			}
		}
		if (!this.offloadPins.isEmpty()) {
			this.out.println();
			this.out.println("Pinned events through Offload (innermost frames first, up to 3 distinct per run):");
			this.offloadPins.stream().distinct().forEach((stack) -> this.out.println("- " + stack));
		}
		return printTargets(platform, virtual);
	}

	private Result measure(Device device, Kernel spin, ExecutorService executor) throws Exception {
		int requests = this.options.requests();
		long[] latencies = new long[requests];
		List<Future<?>> done = new ArrayList<>(requests);
		Path file = Files.createTempFile("offload-pinned", ".jfr");
		try (Recording recording = new Recording()) {
			recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			long start = System.nanoTime();
			try {
				for (int i = 0; i < requests; i++) {
					int index = i;
					long kernelNanos = TimeUnit.MICROSECONDS
						.toNanos(isLight(i) ? this.options.lightMicros() : this.options.kernelMicros());
					long submitted = System.nanoTime();
					done.add(executor.submit(() -> {
						try (OffloadSession session = device.openSession()) {
							session.launch(spin, LaunchConfig.of(1, 1), kernelNanos);
						}
						latencies[index] = System.nanoTime() - submitted;
					}));
				}
				for (Future<?> each : done) {
					each.get(10, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
			}
			long wall = System.nanoTime() - start;
			recording.stop();
			recording.dump(file);
			return summarize(latencies, wall, RecordingFile.readAllEvents(file));
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	private Result summarize(long[] latencies, long wallNanos, List<RecordedEvent> events) {
		int lightCount = 0;
		for (int i = 0; i < latencies.length; i++) {
			lightCount += isLight(i) ? 1 : 0;
		}
		long[] light = new long[lightCount];
		long[] all = Arrays.copyOf(latencies, latencies.length);
		int next = 0;
		for (int i = 0; i < latencies.length; i++) {
			if (isLight(i)) {
				light[next++] = latencies[i];
			}
		}
		List<RecordedEvent> pinned = events.stream()
			.filter((event) -> PINNED.equals(event.getEventType().getName()))
			.toList();
		long fromOffload = pinned.stream().filter(VirtualThreadBenchmark::passesThroughOffload).count();
		pinned.stream()
			.filter(VirtualThreadBenchmark::passesThroughOffload)
			.map(VirtualThreadBenchmark::frames)
			.distinct()
			.limit(3)
			.forEach(this.offloadPins::add);
		return new Result(latencies.length * 1e9 / wallNanos, LatencySummary.of(all), LatencySummary.of(light),
				pinned.size(), fromOffload);
	}

	// The innermost frames of a pinned event, for the report: where the virtual thread
	// was when it could not unmount.
	private static String frames(RecordedEvent event) {
		return event.getStackTrace()
			.getFrames()
			.stream()
			.limit(12)
			.map((frame) -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":"
					+ frame.getLineNumber())
			.collect(Collectors.joining(" < "));
	}

	private static boolean passesThroughOffload(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.map((frame) -> frame.getMethod().getType().getName())
			.anyMatch((type) -> type.startsWith("dev.offload.") && !type.startsWith("dev.offload.benchmarks."));
	}

	private boolean isLight(int request) {
		return request % this.options.lightEvery() == 0;
	}

	private void print(String round, String mode, Result result) {
		this.out.printf(Locale.ROOT, "| %s | %s | %.0f | %s | %s | %s | %s | %d | %d |%n", round, mode,
				result.requestsPerSecond(), micros(result.all().p50Nanos()), micros(result.all().p99Nanos()),
				micros(result.light().p50Nanos()), micros(result.light().p99Nanos()), result.pinned(),
				result.pinnedFromOffload());
	}

	private boolean printTargets(List<Result> platform, List<Result> virtual) {
		double virtualThroughput = median(virtual, Result::requestsPerSecond);
		double platformThroughput = median(platform, Result::requestsPerSecond);
		double virtualLightP99 = median(virtual, (result) -> result.light().p99Nanos());
		double platformLightP99 = median(platform, (result) -> result.light().p99Nanos());
		long pins = virtual.stream().mapToLong(Result::pinnedFromOffload).sum()
				+ platform.stream().mapToLong(Result::pinnedFromOffload).sum();
		boolean throughput = virtualThroughput >= platformThroughput;
		boolean latency = virtualLightP99 <= platformLightP99;
		boolean pinned = pins == 0;
		this.out.println();
		this.out.printf(Locale.ROOT, "Targets (medians of the %d measured rounds):%n", virtual.size());
		this.out.printf(Locale.ROOT,
				"- virtual-thread throughput >= the platform pool's: %.0f vs %.0f requests/s (%.2f×): %s%n",
				virtualThroughput, platformThroughput, virtualThroughput / platformThroughput, verdict(throughput));
		this.out.printf(Locale.ROOT, "- light p99 <= the platform pool's: %s vs %s (%.2f×): %s%n",
				micros((long) virtualLightP99), micros((long) platformLightP99), virtualLightP99 / platformLightP99,
				verdict(latency));
		this.out.printf(Locale.ROOT, "- no pinned event from Offload in the measured rounds: %d: %s%n", pins,
				verdict(pinned));
		return throughput && latency && pinned;
	}

	/**
	 * The median of a measure over rounds (the mean of the middle two for an even count).
	 */
	static double median(List<Result> results, ToDoubleFunction<Result> measure) {
		return LatencySummary.median(results.stream().mapToDouble(measure).toArray());
	}

	private static String verdict(boolean met) {
		return met ? "met" : "MISSED";
	}

	private static String micros(long nanos) {
		return (nanos >= 10_000_000) ? String.format(Locale.ROOT, "%.1f ms", nanos / 1e6)
				: String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
	}

	private static ExecutorService newVirtualThreadPerTaskExecutor() {
		try {
			// Compiled for Java 17: the Java 21 factory is called by reflection.
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21+", ex);
		}
	}

	/**
	 * One mode's run.
	 */
	private record Result(double requestsPerSecond, LatencySummary all, LatencySummary light, long pinned,
			long pinnedFromOffload) {

	}

	/**
	 * The command line.
	 *
	 * @param backend {@code cuda} or {@code host}
	 * @param requests requests in flight per run
	 * @param kernelMicros a request's kernel time
	 * @param lightMicros a light request's kernel time
	 * @param lightEvery one light request in this many
	 * @param platformThreads the platform pool's threads
	 * @param maxStreams the stream pool's bound, 0 for none
	 * @param rounds measured rounds, after the warm-up
	 * @param warmup rounds of warm-up, not measured
	 */
	record Options(String backend, int requests, long kernelMicros, long lightMicros, int lightEvery,
			int platformThreads, int maxStreams, int rounds, int warmup) {

		static final String USAGE = """
				Usage: java -cp ... dev.offload.benchmarks.VirtualThreadBenchmark [options]
				  --backend cuda|host     the backend (cuda)
				  --requests N            requests in flight per run (10000)
				  --kernel-micros N       a request's kernel time (100)
				  --light-micros N        a light request's kernel time (10)
				  --light-every N         one light request in N (20)
				  --platform-threads N    the platform pool's threads (64)
				  --max-streams N         the stream pool's bound, 0 for none (256)
				  --rounds N              measured rounds, the targets on their medians (5)
				  --warmup N              rounds of warm-up before them (3)
				""";

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "cuda", "host"), line.intOption("--requests", 10_000, 1),
					line.intOption("--kernel-micros", 100, 1), line.intOption("--light-micros", 10, 1),
					line.intOption("--light-every", 20, 1), line.intOption("--platform-threads", 64, 1),
					line.intOption("--max-streams", 256, 0), line.intOption("--rounds", 5, 1),
					line.intOption("--warmup", 3, 0));
		}

	}

}
