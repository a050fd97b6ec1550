package dev.offload.benchmarks;

import java.io.PrintStream;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.Backend;

/**
 * The hazard workload on one device against the same workload on each of N devices at
 * once (weak scaling): the one-device run has {@code --threads} threads and
 * {@code --sessions} tasks on device 0; the N-device run has N times both, its sessions
 * placed by {@link DeviceRegistry#openSession()} (least busy). It reports the throughput
 * (tasks per second) and the light tasks' latencies of both, and the targets: throughput
 * at least 1.8 times one device's with two, light p99 no worse.
 */
final class HazardScaling {

	/**
	 * The throughput goal per device added, relative to one device: 1.8 with two devices.
	 */
	static final double THROUGHPUT_GOAL_PER_DEVICE = 0.9;

	private final HazardOptions options;

	private final PrintStream out;

	HazardScaling(HazardOptions options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	/**
	 * Runs both workloads {@code repeat} times, one after the other in each round.
	 * @return the runs' results by number of devices (1 and N)
	 */
	Map<Integer, List<HazardWorkload.Result>> run() {
		int count = this.options.devices();
		Backend backend = Backends.create(this.options.backend(), this.options.hostWorkers(), count);
		List<Integer> available = backend.devices().stream().map((device) -> device.deviceId()).toList();
		if (available.size() < count) {
			backend.close();
			throw new IllegalArgumentException("--devices " + count + " needs " + count + " devices; the "
					+ this.options.backend() + " backend has " + available.size() + ": " + available);
		}
		Map<Integer, List<HazardWorkload.Result>> results = new LinkedHashMap<>();
		try (DeviceRegistry registry = DeviceRegistry.builder(backend).deviceIds(available.subList(0, count)).build()) {
			Map<Integer, Kernel> spins = new HashMap<>();
			registry.devices()
				.forEach((device) -> spins.put(device.id(),
						device.loadModule(SpinKernel.definition()).kernel(SpinKernel.NAME)));
			Device first = registry.devices().get(0);
			HazardWorkload one = this.options.workload();
			HazardWorkload all = new HazardWorkload(one.threads() * count, one.sessions() * count, one.heavyEvery(),
					one.heavyNanos(), one.lightNanos());
			printHeader(registry);
			for (int round = 1; round <= this.options.repeat(); round++) {
				HazardStrategy single = new HazardStrategy.Sessions(first, spins.get(first.id()), false);
				record(results, 1, round, measure(one, single));
				record(results, count, round, measure(all, new Spread(registry, spins)));
			}
		}
		printTargets(results, count);
		return results;
	}

	private HazardWorkload.Result measure(HazardWorkload workload, HazardStrategy strategy) {
		if (this.options.warmup() > 0) {
			workload.lightOnly().withSessions(this.options.warmup()).run(strategy);
		}
		return workload.run(strategy);
	}

	private void record(Map<Integer, List<HazardWorkload.Result>> results, int devices, int round,
			HazardWorkload.Result result) {
		results.computeIfAbsent(devices, (key) -> new ArrayList<>()).add(result);
		LatencySummary light = result.light();
		int tasks = light.count() + result.heavy().count();
		this.out.printf(Locale.ROOT, "| %d | %d | %d | %.1f | %.0f | %.1f | %.1f | %.1f |%n", devices, round, tasks,
				result.wallNanos() / 1e6, throughput(result), light.p50Nanos() / 1e3, light.p99Nanos() / 1e3,
				light.p999Nanos() / 1e3);
		this.out.flush();
	}

	private static double throughput(HazardWorkload.Result result) {
		return (result.light().count() + result.heavy().count()) / (result.wallNanos() / 1e9);
	}

	private void printHeader(DeviceRegistry registry) {
		HazardWorkload workload = this.options.workload();
		this.out.printf(Locale.ROOT, "# Offload hazard benchmark over several devices, %s%n",
				OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS));
		this.out.printf(Locale.ROOT, "# backend %s, devices %s; Java %s; %d CPUs%n", this.options.backend(),
				registry.devices().stream().map((device) -> device.id() + " (" + device.name() + ")").toList(),
				Runtime.version(), Runtime.getRuntime().availableProcessors());
		this.out.printf(Locale.ROOT,
				"# per device: %d threads, %d sessions, one %d µs task in every %d, the rest %d µs; %d warm-up tasks; "
						+ "%d rounds%n%n",
				workload.threads(), workload.sessions(), workload.heavyNanos() / 1_000, workload.heavyEvery(),
				workload.lightNanos() / 1_000, this.options.warmup(), this.options.repeat());
		this.out
			.println("| devices | round | tasks | wall ms | tasks/s | light p50 µs | light p99 µs | light p99.9 µs |");
		this.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
	}

	private void printTargets(Map<Integer, List<HazardWorkload.Result>> results, int count) {
		this.out.println();
		this.out.println("The targets, on the median of the rounds:");
		if (!this.options.backend().equals("cuda")) {
			this.out.println("(the " + this.options.backend() + " backend's devices share the same CPUs: these "
					+ "ratios show that the benchmark runs, not how GPUs scale)");
		}
		double oneThroughput = median(results.get(1), HazardScaling::throughput);
		double allThroughput = median(results.get(count), HazardScaling::throughput);
		double oneP99 = median(results.get(1), (result) -> result.light().p99Nanos());
		double allP99 = median(results.get(count), (result) -> result.light().p99Nanos());
		this.out.printf(Locale.ROOT, "- throughput %d devices / 1 device = %.2f (goal at least %.1f)%n", count,
				allThroughput / oneThroughput, THROUGHPUT_GOAL_PER_DEVICE * count);
		this.out.printf(Locale.ROOT, "- light p99 %d devices / 1 device = %.2f (goal at most 1.0)%n", count,
				allP99 / oneP99);
	}

	private static double median(List<HazardWorkload.Result> runs,
			java.util.function.ToDoubleFunction<HazardWorkload.Result> value) {
		return LatencySummary.median(runs.stream().mapToDouble(value).toArray());
	}

	/**
	 * Offload sessions placed by the registry on its least busy device, each launching
	 * that device's spin kernel.
	 */
	static final class Spread implements HazardStrategy {

		private final DeviceRegistry registry;

		private final Map<Integer, Kernel> spins;

		Spread(DeviceRegistry registry, Map<Integer, Kernel> spins) {
			this.registry = registry;
			this.spins = Map.copyOf(spins);
		}

		@Override
		public void runTask(long nanos) {
			try (OffloadSession session = this.registry.openSession()) {
				session.launch(this.spins.get(session.device().id()), LaunchConfig.of(1, 1), nanos);
			}
		}

	}

}
