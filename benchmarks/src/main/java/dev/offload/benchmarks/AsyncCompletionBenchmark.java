package dev.offload.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.kernel.LaunchConfig;

/**
 * Asynchronous completion on any backend, one thread, the spin kernel for 0 ns: the round
 * trip of {@code close()}, {@code closeAsync().join()} and
 * {@code closeAsync().thenRun(...)} (until the continuation ran), interleaved round by
 * round; then {@code N} sessions in flight closed with {@code closeAsync()} and joined
 * with {@code allOf}. On the host backend the ratios between the modes are what to read
 * (the "device" is a few CPU workers); {@link dev.offload.benchmarks.cuda} has the GPU
 * versions against raw JCuda.
 * <p>
 * Usage in {@link #USAGE}.
 */
public final class AsyncCompletionBenchmark {

	static final String USAGE = """
			Usage: java -cp benchmarks.jar dev.offload.benchmarks.AsyncCompletionBenchmark [options]
			  --backend host|cuda|ffm   the backend (host)
			  --iterations N            round trips per mode and round (20000)
			  --rounds N                rounds after a warm-up round (5)
			  --in-flight N             sessions in flight closed with closeAsync() (8192)
			""";

	private AsyncCompletionBenchmark() {
	}

	public static void main(String[] args) {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		String backend = options.backend();
		int iterations = options.iterations();
		int rounds = options.rounds();
		int inFlight = options.inFlight();
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(backend, 0)).build()) {
			Device device = registry.device(0);
			Kernel spin = device.loadModule(SpinKernel.definition()).kernel(SpinKernel.NAME);
			LaunchConfig one = LaunchConfig.of(1, 1);
			long[] completedAt = new long[1];
			Map<String, LongSupplier> modes = new LinkedHashMap<>();
			modes.put("close()", () -> {
				long start = System.nanoTime();
				try (OffloadSession session = device.openSession()) {
					session.launch(spin, one, 0L);
				}
				return System.nanoTime() - start;
			});
			modes.put("closeAsync().join()", () -> {
				long start = System.nanoTime();
				OffloadSession session = device.openSession();
				session.launch(spin, one, 0L);
				session.closeAsync().join();
				return System.nanoTime() - start;
			});
			modes.put("closeAsync().thenRun(), until it ran", () -> {
				long start = System.nanoTime();
				OffloadSession session = device.openSession();
				session.launch(spin, one, 0L);
				session.closeAsync().thenRun(() -> completedAt[0] = System.nanoTime()).join();
				return completedAt[0] - start;
			});
			Map<String, List<Long>> p50s = new LinkedHashMap<>();
			for (int round = 0; round <= rounds; round++) {
				for (Map.Entry<String, LongSupplier> mode : modes.entrySet()) {
					long[] times = new long[iterations];
					for (int i = 0; i < iterations; i++) {
						times[i] = mode.getValue().getAsLong();
					}
					Arrays.sort(times);
					if (round > 0) {
						p50s.computeIfAbsent(mode.getKey(), (key) -> new ArrayList<>()).add(times[iterations / 2]);
					}
				}
			}
			System.out.printf(Locale.ROOT, "%s backend, %d rounds x %d iterations after a warm-up round; %d CPUs%n%n",
					backend, rounds, iterations, Runtime.getRuntime().availableProcessors());
			System.out.println("| mode | p50 of each round µs | median / close() |");
			System.out.println("| --- | --- | ---: |");
			double close = median(p50s.get("close()"));
			p50s.forEach((name, values) -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f |%n", name,
					values.stream().map((v) -> String.format(Locale.ROOT, "%.1f", v / 1e3)).toList(),
					median(values) / close));
			System.out.println();
			for (int round = 0; round <= rounds; round++) {
				List<CompletableFuture<Void>> futures = new ArrayList<>(inFlight);
				long start = System.nanoTime();
				for (int i = 0; i < inFlight; i++) {
					OffloadSession session = device.openSession();
					session.launch(spin, one, 0L);
					futures.add(session.closeAsync());
				}
				CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
				double seconds = (System.nanoTime() - start) / 1e9;
				System.out.printf(Locale.ROOT, "%s: %d sessions in flight, %.0f sessions/s, pool size %d%n",
						(round == 0) ? "cold round" : "round " + round, inFlight, inFlight / seconds,
						device.streamPool().statistics().size());
			}
		}
	}

	private static double median(List<Long> values) {
		long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
	}

	private record Options(String backend, int iterations, int rounds, int inFlight) {

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "host", "cuda", "ffm"), line.intOption("--iterations", 20000),
					line.intOption("--rounds", 5), line.intOption("--in-flight", 8192));
		}

	}

}
