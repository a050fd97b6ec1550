package dev.offload.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.StreamPoolConfig;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;

/**
 * The stream-sharing hazard, measured: many threads run short tasks, and a few long ones,
 * each on a stream; with streams shared round-robin a short task's synchronize waits for
 * a long task that landed on its stream before it, with a pool it does not. Strategies,
 * measured in the same run and in rounds: Offload sessions, round-robin over 256 and over
 * 32 fixed streams, a stream created and destroyed per task, a bare borrow/return pool on
 * the backend SPI, and Offload sessions with light tasks only (the floor).
 * <p>
 * Run on the GPU machine with {@code --backend cuda}; on the host backend (the default)
 * the kernels are Java loops on the emulated device's workers, so its numbers say that
 * the benchmark works, not how a GPU behaves.
 */
public final class HazardBenchmark {

	private final HazardOptions options;

	private final PrintStream out;

	HazardBenchmark(HazardOptions options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	/**
	 * Runs the benchmark and prints a Markdown table of the runs and the targets.
	 * @param args the options; {@code --help} prints them
	 */
	public static void main(String[] args) {
		HazardOptions options = CommandLine.parse(args, HazardOptions.USAGE, HazardOptions::from);
		if (options.devices() > 1) {
			new HazardScaling(options, System.out).run();
			return;
		}
		new HazardBenchmark(options, System.out).run();
	}

	/**
	 * Runs every strategy {@code repeat} times.
	 * @return the runs' results by strategy, in order
	 */
	Map<String, List<HazardWorkload.Result>> run() {
		Backend backend = Backends.create(this.options.backend(), this.options.hostWorkers());
		Map<String, List<HazardWorkload.Result>> results = new LinkedHashMap<>();
		try (DeviceRegistry registry = DeviceRegistry.builder(backend)
			.deviceIds(List.of(this.options.deviceId()))
			.build()) {
			Device device = registry.device(this.options.deviceId());
			Kernel spin = device.loadModule(SpinKernel.definition()).kernel(SpinKernel.NAME);
			BackendDevice raw = rawDevice(backend);
			BackendModule rawModule = raw.loadModule(SpinKernel.definition());
			BackendKernel rawSpin = rawModule.kernels().get(SpinKernel.NAME);
			printHeader(device);
			for (int round = 1; round <= this.options.repeat(); round++) {
				for (String name : this.options.strategies()) {
					HazardWorkload.Result result = measure(name, device, spin, raw, rawSpin);
					results.computeIfAbsent(name, (key) -> new ArrayList<>()).add(result);
					print(name, round, result);
				}
			}
			rawModule.unload();
		}
		printTargets(results);
		return results;
	}

	private BackendDevice rawDevice(Backend backend) {
		return backend.devices()
			.stream()
			.filter((each) -> each.info().id() == this.options.deviceId())
			.findFirst()
			.orElseThrow();
	}

	private HazardWorkload.Result measure(String name, Device device, Kernel spin, BackendDevice raw,
			BackendKernel rawSpin) {
		HazardWorkload workload = name.equals("light-only") ? this.options.workload().lightOnly()
				: this.options.workload();
		try (HazardStrategy strategy = strategy(name, device, spin, raw, rawSpin)) {
			if (this.options.warmup() > 0) {
				workload.lightOnly().withSessions(this.options.warmup()).run(strategy);
			}
			return workload.run(strategy);
		}
	}

	private static HazardStrategy strategy(String name, Device device, Kernel spin, BackendDevice raw,
			BackendKernel rawSpin) {
		int streams = HazardOptions.roundRobinSize(name);
		if (streams > 0) {
			return new HazardStrategy.RoundRobin(raw, rawSpin, streams);
		}
		return switch (name) {
			case "offload", "light-only" -> new HazardStrategy.Sessions(device, spin, false);
			case "offload-sync" -> new HazardStrategy.Sessions(device, spin, true);
			case "create-destroy" -> new HazardStrategy.CreateDestroy(raw, rawSpin);
			case "bare-pool" -> new HazardStrategy.BarePool(raw, rawSpin, StreamPoolConfig.DEFAULT_INITIAL_SIZE);
			default -> throw new IllegalArgumentException("Unknown strategy " + name);
		};
	}

	private void printHeader(Device device) {
		HazardWorkload workload = this.options.workload();
		this.out.printf(Locale.ROOT, "# Offload hazard benchmark, %s%n",
				OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS));
		this.out.printf(Locale.ROOT, "# backend %s, device %d (%s, %d multiprocessors); Java %s; %d CPUs%n",
				this.options.backend(), device.id(), device.name(), device.info().multiprocessorCount(),
				Runtime.version(), Runtime.getRuntime().availableProcessors());
		this.out.printf(Locale.ROOT,
				"# %d threads, %d sessions, one %d µs task in every %d, the rest %d µs; %d warm-up tasks; %d rounds%n",
				workload.threads(), workload.sessions(), workload.heavyNanos() / 1_000, workload.heavyEvery(),
				workload.lightNanos() / 1_000, this.options.warmup(), this.options.repeat());
		this.out.printf(Locale.ROOT, "# %d more threads run %d µs tasks back to back (a heavy kernel always runs)%n",
				workload.heavyAlways(), workload.heavyNanos() / 1_000);
		this.out.printf(Locale.ROOT, "# CUDA_DEVICE_MAX_CONNECTIONS=%s%n%n",
				Objects.requireNonNullElse(System.getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "unset"));
		this.out.println("| strategy | round | wall ms | light p50 µs | light p99 µs | light p99.9 µs | light max µs "
				+ "| heavy p50 ms |");
		this.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
	}

	private void print(String name, int round, HazardWorkload.Result result) {
		LatencySummary light = result.light();
		this.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |%n", name, round,
				result.wallNanos() / 1e6, light.p50Nanos() / 1e3, light.p99Nanos() / 1e3, light.p999Nanos() / 1e3,
				light.maxNanos() / 1e3, result.heavy().p50Nanos() / 1e6);
		this.out.flush();
		if (this.options.csv() != null) {
			appendCsv(name, round, result);
		}
	}

	private void appendCsv(String name, int round, HazardWorkload.Result result) {
		HazardWorkload workload = this.options.workload();
		LatencySummary light = result.light();
		String line = String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n", this.options.backend(), name,
				round, workload.threads(), workload.sessions(), result.wallNanos(), light.p50Nanos(), light.p99Nanos(),
				light.p999Nanos(), light.maxNanos(), result.heavy().p50Nanos(), result.heavy().count());
		try {
			boolean fresh = Files.notExists(this.options.csv());
			if (fresh) {
				Files.writeString(this.options.csv(),
						"backend,strategy,round,threads,sessions,wall_ns,light_p50_ns,"
								+ "light_p99_ns,light_p999_ns,light_max_ns,heavy_p50_ns,heavy_count\n",
						StandardCharsets.UTF_8);
			}
			Files.writeString(this.options.csv(), line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + this.options.csv(), ex);
		}
	}

	private void printTargets(Map<String, List<HazardWorkload.Result>> results) {
		this.out.println();
		this.out.println("The targets, on the median of the rounds:");
		if (this.options.backend().equals("host")) {
			this.out.println("(the " + this.options.backend() + " backend runs kernels on a few CPU workers: these "
					+ "ratios show that the benchmark runs, not how a GPU behaves)");
		}
		Double offloadP99 = median(results.get("offload"), (r) -> r.light().p99Nanos());
		Double floorP99 = median(results.get("light-only"), (r) -> r.light().p99Nanos());
		Double roundRobinP99 = median(results.get("round-robin-256"), (r) -> r.light().p99Nanos());
		Double offloadWall = median(results.get("offload"), HazardWorkload.Result::wallNanos);
		Double bareWall = median(results.get("bare-pool"), HazardWorkload.Result::wallNanos);
		target("light p99 mixed / light-only", offloadP99, floorP99, "at most 1.3");
		target("light p99 round-robin-256 / offload", roundRobinP99, offloadP99, "at least 10");
		target("wall offload / bare-pool", offloadWall, bareWall, "at most 1.1");
		target("wall offload-sync (launch, synchronize, close) / bare-pool",
				median(results.get("offload-sync"), HazardWorkload.Result::wallNanos), bareWall, "at most 1.05");
	}

	private void target(String label, Double numerator, Double denominator, String goal) {
		if (numerator == null || denominator == null || denominator == 0) {
			this.out.printf(Locale.ROOT, "- %s: not measured (goal %s)%n", label, goal);
			return;
		}
		this.out.printf(Locale.ROOT, "- %s = %.2f (goal %s)%n", label, numerator / denominator, goal);
	}

	private static Double median(List<HazardWorkload.Result> runs,
			java.util.function.ToLongFunction<HazardWorkload.Result> value) {
		if (runs == null || runs.isEmpty()) {
			return null;
		}
		long[] values = runs.stream().mapToLong(value).sorted().toArray();
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
	}

}
