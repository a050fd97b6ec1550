package dev.offload.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of {@link HazardBenchmark}, with the defaults of the benchmark plan:
 * 16 threads, 20,000 sessions, one 5 ms task in every 200, the rest 20 µs.
 *
 * @param backend {@code host} or {@code cuda}
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
			  --backend host|cuda     the backend (host)
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
	 * Parses the command line.
	 * @param args the arguments
	 * @return the options
	 * @throws IllegalArgumentException naming the first bad argument
	 */
	static HazardOptions parse(String... args) {
		String backend = "host";
		int deviceId = 0;
		int threads = 16;
		int sessions = 20_000;
		int heavyEvery = 200;
		long heavyMicros = 5_000;
		long lightMicros = 20;
		int warmup = 2_000;
		int repeat = 3;
		List<String> strategies = ALL_STRATEGIES;
		int hostWorkers = 0;
		Path csv = null;
		int devices = 1;
		int heavyAlways = 0;
		for (int i = 0; i < args.length; i++) {
			String name = args[i];
			if (i + 1 >= args.length) {
				throw new IllegalArgumentException("Option " + name + " needs a value\n" + USAGE);
			}
			String value = args[++i];
			switch (name) {
				case "--backend" -> backend = value;
				case "--device" -> deviceId = number(name, value);
				case "--threads" -> threads = number(name, value);
				case "--sessions" -> sessions = number(name, value);
				case "--heavy-every" -> heavyEvery = number(name, value);
				case "--heavy-micros" -> heavyMicros = number(name, value);
				case "--light-micros" -> lightMicros = number(name, value);
				case "--warmup" -> warmup = number(name, value);
				case "--repeat" -> repeat = number(name, value);
				case "--strategies" -> strategies = strategies(value);
				case "--host-workers" -> hostWorkers = number(name, value);
				case "--csv" -> csv = Path.of(value);
				case "--devices" -> devices = number(name, value);
				case "--heavy-always" -> heavyAlways = number(name, value);
				default -> throw new IllegalArgumentException("Unknown option " + name + "\n" + USAGE);
			}
		}
		if (repeat < 1 || warmup < 0) {
			throw new IllegalArgumentException("--repeat must be at least 1 and --warmup at least 0");
		}
		if (devices < 1) {
			throw new IllegalArgumentException("--devices must be at least 1, was " + devices);
		}
		HazardWorkload workload = new HazardWorkload(threads, sessions, heavyEvery, heavyMicros * 1_000,
				lightMicros * 1_000, heavyAlways);
		return new HazardOptions(backend, deviceId, workload, warmup, repeat, strategies, hostWorkers, csv, devices);
	}

	private static List<String> strategies(String value) {
		List<String> names = Arrays.stream(value.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
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

	private static int number(String name, String value) {
		try {
			int number = Integer.parseInt(value);
			if (number < 0) {
				throw new IllegalArgumentException(name + " must be at least 0, was " + value);
			}
			return number;
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + " needs a number, was '" + value + "'", ex);
		}
	}

}
