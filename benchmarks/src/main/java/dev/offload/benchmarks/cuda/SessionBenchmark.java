package dev.offload.benchmarks.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.backend.cuda.CudaBackendProvider;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendAvailability;

/**
 * The cost of a session on a real GPU, against raw JCuda in the same process: one
 * empty-kernel launch per iteration, single-threaded, timed with
 * {@link System#nanoTime()} per iteration; strategies interleaved round by round so that
 * drift (clocks, other tenants) hits them alike.
 * <ul>
 * <li>{@code raw launch + cuStreamSynchronize}: {@code cuLaunchKernel} and
 * {@code cuStreamSynchronize} on one fixed stream, the floor (8.5-9.2 µs p50 through
 * JCuda on an H200, measured before this project).</li>
 * <li>{@code raw launch + cuStreamQuery poll}: the same, completion seen by polling.</li>
 * <li>{@code session: launch, close}: borrow on the launch, close synchronizes and
 * releases.</li>
 * <li>{@code session: launch, synchronize, close}: the same with an explicit
 * synchronize.</li>
 * <li>{@code session: launch, closeAsync (completed)}: from opening to the completion
 * thread completing the future.</li>
 * <li>{@code session: launch, closeAsync().join()}: until the caller's {@code join}
 * returns.</li>
 * </ul>
 * Usage in {@link #USAGE}. Prints a Markdown table; exits 2 without a CUDA device.
 */
public final class SessionBenchmark {

	static final String USAGE = """
			Usage: java -cp ... dev.offload.benchmarks.cuda.SessionBenchmark [options]
			  --iterations N   iterations per round and strategy (50000)
			  --warmup N       warm-up iterations (20000)
			  --rounds N       rounds (5)
			  --backend cuda|ffm  Offload's binding (cuda: JCuda); the raw loop is JCuda's on both
			""";

	private static final String EMPTY_PTX = "dev/offload/benchmarks/cuda/empty.ptx";

	private final Device device;

	private final Kernel empty;

	private final LaunchConfig one = LaunchConfig.of(1, 1);

	private final CUfunction rawFunction = new CUfunction();

	private final CUstream rawStream = new CUstream();

	private long completedAt;

	private SessionBenchmark(Device device, byte[] ptx, String backend) {
		this.device = device;
		this.empty = device.loadModule(ModuleDefinition.builder("empty").image(ptx).build()).kernel("empty");
		try (OffloadSession session = device.openSession()) {
			// The raw loop runs in the same primary context, on its own module and
			// stream.
			RawContext.current(session, backend, 0);
		}
		CUmodule module = new CUmodule();
		check(JCudaDriver.cuModuleLoadData(module, Arrays.copyOf(ptx, ptx.length + 1)), "cuModuleLoadData");
		check(JCudaDriver.cuModuleGetFunction(this.rawFunction, module, "empty"), "cuModuleGetFunction");
		check(JCudaDriver.cuStreamCreateWithPriority(this.rawStream, CUstream_flags.CU_STREAM_NON_BLOCKING, 0),
				"cuStreamCreateWithPriority");
	}

	/**
	 * Runs the benchmark.
	 * @param args the options, in {@link #USAGE}
	 */
	public static void main(String[] args) {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		int iterations = options.iterations();
		int warmup = options.warmup();
		int rounds = options.rounds();
		BackendAvailability availability = new CudaBackendProvider().probe();
		if (!availability.available()) {
			System.out.println("No CUDA device: " + availability.message());
			System.exit(2);
		}
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(options.backend(), 0))
			.deviceIds(List.of(0))
			.build()) {
			Device device = registry.device(0);
			System.out.printf(Locale.ROOT, "Device 0: %s, compute capability %s, %d SMs; %s; Java %s; %d CPUs%n",
					device.name(), device.info().computeCapability(), device.info().multiprocessorCount(),
					availability.message(), Runtime.version(), Runtime.getRuntime().availableProcessors());
			System.out.printf(Locale.ROOT, "%d rounds x %d iterations per strategy after %d warm-up iterations%n%n",
					rounds, iterations, warmup);
			new SessionBenchmark(device, resource(EMPTY_PTX), options.backend()).run(iterations, warmup, rounds);
		}
	}

	private void run(int iterations, int warmup, int rounds) {
		Map<String, Strategy> strategies = new LinkedHashMap<>();
		strategies.put("raw launch + cuStreamSynchronize", this::rawSynchronize);
		strategies.put("raw launch + cuStreamQuery poll", this::rawPoll);
		strategies.put("session: launch, close", this::sessionClose);
		strategies.put("session: launch, synchronize, close", this::sessionSynchronizeClose);
		strategies.put("session: launch, closeAsync (completed)", this::sessionCloseAsyncCompleted);
		strategies.put("session: launch, closeAsync().join()", this::sessionCloseAsyncJoin);
		Map<String, List<long[]>> samples = new LinkedHashMap<>();
		strategies.forEach((name, strategy) -> {
			samples.put(name, new ArrayList<>());
			for (int i = 0; i < warmup; i++) {
				strategy.runOnce();
			}
		});
		for (int round = 0; round < rounds; round++) {
			for (Map.Entry<String, Strategy> entry : strategies.entrySet()) {
				long[] times = new long[iterations];
				for (int i = 0; i < iterations; i++) {
					times[i] = entry.getValue().runOnce();
				}
				samples.get(entry.getKey()).add(times);
			}
		}
		report(samples);
		check(JCudaDriver.cuStreamDestroy(this.rawStream), "cuStreamDestroy");
	}

	private long rawSynchronize() {
		long start = System.nanoTime();
		check(JCudaDriver.cuLaunchKernel(this.rawFunction, 1, 1, 1, 1, 1, 1, 0, this.rawStream, null, null),
				"cuLaunchKernel");
		check(JCudaDriver.cuStreamSynchronize(this.rawStream), "cuStreamSynchronize");
		return System.nanoTime() - start;
	}

	private long rawPoll() {
		long start = System.nanoTime();
		check(JCudaDriver.cuLaunchKernel(this.rawFunction, 1, 1, 1, 1, 1, 1, 0, this.rawStream, null, null),
				"cuLaunchKernel");
		int result;
		while ((result = JCudaDriver.cuStreamQuery(this.rawStream)) == CUresult.CUDA_ERROR_NOT_READY) {
			Thread.onSpinWait();
		}
		check(result, "cuStreamQuery");
		return System.nanoTime() - start;
	}

	private long sessionClose() {
		long start = System.nanoTime();
		try (OffloadSession session = this.device.openSession()) {
			session.launch(this.empty, this.one);
		}
		return System.nanoTime() - start;
	}

	private long sessionSynchronizeClose() {
		long start = System.nanoTime();
		try (OffloadSession session = this.device.openSession()) {
			session.launch(this.empty, this.one);
			session.synchronize();
		}
		return System.nanoTime() - start;
	}

	private long sessionCloseAsyncCompleted() {
		long start = System.nanoTime();
		OffloadSession session = this.device.openSession();
		session.launch(this.empty, this.one);
		session.closeAsync().thenRun(() -> this.completedAt = System.nanoTime()).join();
		return this.completedAt - start;
	}

	private long sessionCloseAsyncJoin() {
		long start = System.nanoTime();
		OffloadSession session = this.device.openSession();
		session.launch(this.empty, this.one);
		session.closeAsync().join();
		return System.nanoTime() - start;
	}

	private static void report(Map<String, List<long[]>> samples) {
		double rawP50 = 0;
		double sessionP50 = 0;
		System.out.println("| strategy | p50 µs | p90 µs | p99 µs | p99.9 µs | mean µs | p50 of rounds (min-max) µs "
				+ "| vs raw sync p50 |");
		System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
		for (Map.Entry<String, List<long[]>> entry : samples.entrySet()) {
			long[] all = entry.getValue().stream().flatMapToLong(Arrays::stream).sorted().toArray();
			double p50 = micros(LatencySummary.percentile(all, 50));
			if (rawP50 == 0) {
				rawP50 = p50;
			}
			if (entry.getKey().equals("session: launch, close")) {
				sessionP50 = p50;
			}
			double roundMin = Double.MAX_VALUE;
			double roundMax = 0;
			for (long[] round : entry.getValue()) {
				long[] sorted = round.clone();
				Arrays.sort(sorted);
				double roundP50 = micros(LatencySummary.percentile(sorted, 50));
				roundMin = Math.min(roundMin, roundP50);
				roundMax = Math.max(roundMax, roundP50);
			}
			System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f-%.1f | %.2fx |%n",
					entry.getKey(), p50, micros(LatencySummary.percentile(all, 90)),
					micros(LatencySummary.percentile(all, 99)), micros(LatencySummary.percentile(all, 99.9)),
					micros(Arrays.stream(all).average().orElse(0)), roundMin, roundMax, p50 / rawP50);
		}
		double asyncP50 = micros(LatencySummary.percentile(samples.get("session: launch, closeAsync (completed)")
			.stream()
			.flatMapToLong(Arrays::stream)
			.sorted()
			.toArray(), 50));
		System.out.printf(Locale.ROOT, "%nsession p50 / raw p50 = %.2f (target <= 1.10)%n", sessionP50 / rawP50);
		System.out.printf(Locale.ROOT, "closeAsync completion p50 / session p50 = %.2f (target <= 1.5)%n",
				asyncP50 / sessionP50);
	}

	private static double micros(double nanos) {
		return nanos / 1000.0;
	}

	private static void check(int result, String call) {
		if (result != CUresult.CUDA_SUCCESS) {
			throw new IllegalStateException(call + " failed: " + CUresult.stringFor(result));
		}
	}

	private static byte[] resource(String name) {
		try (InputStream in = SessionBenchmark.class.getClassLoader().getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + name);
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@FunctionalInterface
	private interface Strategy {

		long runOnce();

	}

	private record Options(int iterations, int warmup, int rounds, String backend) {

		static Options from(CommandLine line) {
			return new Options(line.intOption("--iterations", 50_000), line.intOption("--warmup", 20_000),
					line.intOption("--rounds", 5), line.choice("--backend", "cuda", "ffm"));
		}

	}

}
