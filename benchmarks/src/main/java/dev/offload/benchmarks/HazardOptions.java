package dev.offload.benchmarks;

import java.nio.file.Path;
import java.util.List;

import dev.offload.benchmarks.support.CommandLine;

/**
 * The command line of {@link HazardBenchmark}, with the defaults of the benchmark plan:
 * 16 threads, 20,000 sessions, one 5 ms task in every 200, the rest 20 µs.
 *
 * @param backend {@code host}, {@code cuda} or {@code ffm}
 * @param deviceId the device to run on
 * @param workload the measured tasks
 * @param warmup the light tasks run before each measured run, not measured
 * @param repeat how many times every strategy is measured, in rounds
 * @param strategies the strategies' names, in order
 * @param hostWorkers workers per host device, 0 for the host backend's default
 * @param csv a file to append one line per run to, or {@code null}
 * @param devices 1 for the strategies on one device; more for the scaling mode
 * ({@link HazardScaling}): Offload sessions on one device against sessions placed over
 * this many
 */
record HazardOptions(String backend, int deviceId, HazardWorkload workload, int warmup, int repeat,
		List<String> strategies, int hostWorkers, Path csv, int devices) {

	static final List<String> ALL_STRATEGIES = List.of("offload", "offload-sync", "round-robin-256", "round-robin-32",
			"create-destroy", "bare-pool", "light-only");

	static final String USAGE = """
			Usage: java -cp benchmarks.jar dev.offload.benchmarks.HazardBenchmark [options]
			  --backend host|cuda|ffm the backend (host)
			  --device N              the device id (0)
			  --threads N             threads running tasks (16)
			  --sessions N            measured tasks per run (20000)
			  --heavy-every N         one heavy task in every N (200)
			  --heavy-micros N        a heavy task's kernel time (5000)
			  --heavy-always N        N more threads run heavy tasks back to back for the whole run, so that a
			                          heavy kernel is always running; the heavy latencies are theirs (0)
			  --light-micros N        a light task's kernel time (20)
			  --warmup N              light tasks before each run, not measured (2000)
			  --repeat N              rounds over all strategies (3)
			  --strategies a,b,...    among offload, offload-sync, round-robin-N, create-destroy, bare-pool, light-only (all)
			  --host-workers N        workers per host device (the host backend's default)
			  --csv FILE              append one line per run to FILE
			  --devices N             N > 1: Offload sessions on device 0 against sessions placed over devices
			                          0..N-1, each with --threads and --sessions (1)
			""";

	/**
	 * Reads the command line.
	 * @param line the command line
	 * @return the options
	 * @throws IllegalArgumentException naming the first bad option
	 */
	static HazardOptions from(CommandLine line) {
		String backend = line.choice("--backend", "host", "cuda", "ffm");
		int deviceId = line.intOption("--device", 0, 0);
		int warmup = line.intOption("--warmup", 2_000, 0);
		int repeat = line.intOption("--repeat", 3, 1);
		List<String> strategies = strategies(line.stringList("--strategies", ALL_STRATEGIES));
		int hostWorkers = line.intOption("--host-workers", 0, 0);
		String csv = line.optionalString("--csv");
		int devices = line.intOption("--devices", 1, 1);
		HazardWorkload workload = new HazardWorkload(line.intOption("--threads", 16, 0),
				line.intOption("--sessions", 20_000, 0), line.intOption("--heavy-every", 200, 0),
				line.intOption("--heavy-micros", 5_000, 0) * 1_000L, line.intOption("--light-micros", 20, 0) * 1_000L,
				line.intOption("--heavy-always", 0, 0));
		return new HazardOptions(backend, deviceId, workload, warmup, repeat, strategies, hostWorkers,
				(csv != null) ? Path.of(csv) : null, devices);
	}

	private static List<String> strategies(List<String> names) {
		for (String name : names) {
			if (!ALL_STRATEGIES.contains(name) && roundRobinSize(name) < 1) {
				throw new IllegalArgumentException(
						"Unknown strategy '" + name + "'; use " + ALL_STRATEGIES + " or round-robin-N");
			}
		}
		return names;
	}

	/**
	 * Returns N of a {@code round-robin-N} strategy.
	 * @param name the strategy's name
	 * @return the number of streams, or -1 if the name is not of that form
	 */
	static int roundRobinSize(String name) {
		if (!name.startsWith("round-robin-")) {
			return -1;
		}
		try {
			return Integer.parseInt(name.substring("round-robin-".length()));
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

}
