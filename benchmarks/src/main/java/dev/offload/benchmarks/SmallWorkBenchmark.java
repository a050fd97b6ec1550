package dev.offload.benchmarks;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import dev.offload.CapturedFlow;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.BatchKernel;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Batcher;
import dev.offload.template.KernelCall;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadTemplate;

/**
 * Small work at GPU scale, on the host backend or CUDA: (1) {@code --requests} concurrent
 * one-option price requests (one caller thread each), unbatched (a launch per request)
 * against batched ({@link Batcher}, {@code --max-delay-us}), in bursts (all requests at
 * once, round after round) and sustained (each caller's requests back to back), with
 * throughput, p50/p99 and a bit-for-bit comparison of the prices; (2) a flow of
 * {@code --launches} Black-Scholes launches with a copy in and out, eager against
 * replayed ({@link CapturedFlow}), with the outputs compared. It prints Markdown with the
 * targets (batched throughput at least 10 times unbatched; batched p99 within max delay +
 * one batch kernel + unbatched p99; replay at least 4 times faster) and exits 1 if a
 * result differs. <pre>
 * java -cp ... dev.offload.benchmarks.SmallWorkBenchmark --backend cuda --requests 1000 --rounds 20
 * </pre>
 */
public final class SmallWorkBenchmark {

	private static final KernelRef BLACK_SCHOLES = BlackScholesKernel.BLACK_SCHOLES;

	private static final int BLOCK = 128;

	private final Options options;

	private final DeviceRegistry registry;

	private final OffloadTemplate template;

	private final PrintStream out;

	SmallWorkBenchmark(Options options, PrintStream out) {
		this.options = options;
		this.out = out;
		this.registry = DeviceRegistry.builder(Backends.create(options.backend, options.hostWorkers)).build();
		this.template = new OffloadTemplate(this.registry,
				BatchPolicy.DEFAULTS.withMaxDelay(Duration.ofNanos(options.maxDelayMicros * 1000L)), (batch) -> {
				});
	}

	/**
	 * Runs the benchmark.
	 * @param args {@code --backend host|cuda}, {@code --requests N}, {@code --rounds N},
	 * {@code --max-delay-us N}, {@code --launches N}, {@code --flow-options N},
	 * {@code --replays N}, {@code --host-workers N}
	 * @throws Exception if a part fails
	 */
	public static void main(String[] args) throws Exception {
		if (!new SmallWorkBenchmark(Options.parse(args), System.out).run()) {
			System.out.println("RESULTS DIFFER");
			System.exit(1);
		}
	}

	/**
	 * Runs both parts and closes the registry.
	 * @return whether every batched and replayed result was bit-identical to its
	 * reference
	 * @throws Exception if a part fails
	 */
	boolean run() throws Exception {
		try {
			this.out.printf(Locale.ROOT, "# Small work: %s backend, %s%n%n", this.options.backend,
					this.registry.device(0).name());
			boolean batched = batching();
			boolean withCopies = flow(true);
			boolean withoutCopies = flow(false);
			emptyFlow();
			return withoutCopies && withCopies && batched;
		}
		finally {
			this.template.batchers().forEach(Batcher::close);
			this.registry.close();
		}
	}

	/** Option {@code i}: spot, strike, maturity, rate, volatility. */
	static double[] option(int i) {
		return new double[] { 80 + (i % 41), 100, 0.25 + (i % 7) * 0.25, 0.01 + (i % 3) * 0.01, 0.15 + (i % 5) * 0.05 };
	}

	/** One request priced alone: one launch of one thread. */
	double[] priceAlone(double[] option) {
		return this.template.kernel(BLACK_SCHOLES).threads(1, BLOCK).arg(1).in(option).outDoubles(2).run().doubles(0);
	}

	private boolean batching() throws Exception {
		int requests = this.options.requests;
		ExecutorService callers = Executors.newFixedThreadPool(requests);
		try (Batcher<double[], double[]> batcher = this.template.batcher(new OptionBatch())) {
			// Warm-up: loads the module, creates the streams, compiles the paths.
			round(callers, (i) -> priceAlone(option(i)));
			round(callers, (i) -> batcher.submit(option(i)).join());
			Run unbatched = rounds(callers, (i) -> priceAlone(option(i)));
			Run batched = rounds(callers, (i) -> batcher.submit(option(i)).join());
			Run unbatchedSustained = sustained(callers, (i) -> priceAlone(option(i)));
			Run batchedSustained = sustained(callers, (i) -> batcher.submit(option(i)).join());
			long kernelNanos = oneBatchKernel(requests);
			Batcher.Statistics statistics = batcher.statistics();
			boolean identical = Arrays.deepEquals(bits(unbatched.prices), bits(batched.prices))
					&& Arrays.deepEquals(bits(unbatched.prices), bits(batchedSustained.prices))
					&& Arrays.deepEquals(bits(unbatched.prices), bits(unbatchedSustained.prices));
			this.out.printf(Locale.ROOT, "## %d concurrent one-option price requests, %d rounds%n%n", requests,
					this.options.rounds);
			this.out.println("| mode | requests/s | p50 µs | p99 µs | max µs |");
			this.out.println("| --- | ---: | ---: | ---: | ---: |");
			row("unbatched (one launch each), bursts", unbatched);
			row("batched (max delay " + this.options.maxDelayMicros + " µs), bursts", batched);
			row("unbatched (one launch each), sustained", unbatchedSustained);
			row("batched (max delay " + this.options.maxDelayMicros + " µs), sustained", batchedSustained);
			this.out.printf(Locale.ROOT,
					"%nBursts: all %d requests submitted to their callers at once, each round waiting for the last; "
							+ "sustained: each of the %d callers makes %d requests back to back.%n",
					requests, requests, this.options.rounds);
			this.out.printf(Locale.ROOT,
					"Mean batch size %.1f over %d batches. One batch kernel of %d options: %d µs (median).%n",
					statistics.meanBatchSize(), statistics.batches(), requests, kernelNanos / 1000);
			targets("bursts", unbatched, batched, kernelNanos);
			targets("sustained", unbatchedSustained, batchedSustained, kernelNanos);
			this.out.printf(Locale.ROOT, "- batched prices bit-identical to unbatched: %s%n%n",
					identical ? "yes" : "NO");
			return identical;
		}
		finally {
			callers.shutdownNow();
		}
	}

	private void targets(String mode, Run unbatched, Run batched, long kernelNanos) {
		double ratio = batched.throughput() / unbatched.throughput();
		long bound = this.options.maxDelayMicros * 1000L + kernelNanos + unbatched.latency.p99Nanos();
		this.out.printf(Locale.ROOT, "- %s: throughput ratio %.1f× (target ≥ 10×): %s%n", mode, ratio,
				(ratio >= 10) ? "met" : "missed");
		this.out.printf(Locale.ROOT, "- %s: batched p99 %d µs ≤ max delay + one kernel + unbatched p99 = %d µs: %s%n",
				mode, batched.latency.p99Nanos() / 1000, bound / 1000,
				(batched.latency.p99Nanos() <= bound) ? "met" : "missed");
	}

	/**
	 * Each of the {@code --requests} callers makes {@code --rounds} requests back to
	 * back, all callers started together: the steady state of that many concurrent
	 * clients, without a barrier between rounds.
	 */
	private Run sustained(ExecutorService callers, IntFunction<double[]> price) throws Exception {
		int requests = this.options.requests;
		int perCaller = this.options.rounds;
		long[] latencies = new long[requests * perCaller];
		double[][] prices = new double[requests][];
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>(requests);
		for (int i = 0; i < requests; i++) {
			int index = i;
			futures.add(callers.submit(() -> {
				start.await();
				for (int r = 0; r < perCaller; r++) {
					long begun = System.nanoTime();
					prices[index] = price.apply(index);
					latencies[index * perCaller + r] = System.nanoTime() - begun;
				}
				return null;
			}));
		}
		long begun = System.nanoTime();
		start.countDown();
		for (Future<?> future : futures) {
			future.get();
		}
		long elapsed = System.nanoTime() - begun;
		return new Run(latencies.length, elapsed, LatencySummary.of(latencies), prices);
	}

	private Run rounds(ExecutorService callers, IntFunction<double[]> price) throws Exception {
		int requests = this.options.requests;
		long[] latencies = new long[requests * this.options.rounds];
		double[][] prices = null;
		long start = System.nanoTime();
		for (int r = 0; r < this.options.rounds; r++) {
			Round round = round(callers, price);
			System.arraycopy(round.latencies, 0, latencies, r * requests, requests);
			prices = round.prices;
		}
		long elapsed = System.nanoTime() - start;
		return new Run(latencies.length, elapsed, LatencySummary.of(latencies), prices);
	}

	private Round round(ExecutorService callers, IntFunction<double[]> price) throws Exception {
		int requests = this.options.requests;
		List<Future<double[]>> futures = new ArrayList<>(requests);
		long[] latencies = new long[requests];
		for (int i = 0; i < requests; i++) {
			int index = i;
			long submitted = System.nanoTime();
			futures.add(callers.submit(() -> {
				double[] result = price.apply(index);
				latencies[index] = System.nanoTime() - submitted;
				return result;
			}));
		}
		double[][] prices = new double[requests][];
		for (int i = 0; i < requests; i++) {
			prices[i] = futures.get(i).get();
		}
		return new Round(latencies, prices);
	}

	/** The median time of one launch that prices {@code n} options, copies included. */
	private long oneBatchKernel(int n) {
		double[] input = OptionBatch.gather(n, (i) -> option(i));
		long[] times = new long[21];
		for (int i = 0; i < times.length; i++) {
			long start = System.nanoTime();
			this.template.kernel(BLACK_SCHOLES).threads(n, BLOCK).arg(n).in(input).outDoubles(2 * n).run();
			times[i] = System.nanoTime() - start;
		}
		Arrays.sort(times);
		return times[times.length / 2];
	}

	/**
	 * Eager launches against their captured flow; with {@code copies}, each run also
	 * copies the input in and the output out (inside the flow when replayed); without, it
	 * is the launches and the synchronize only (the input copied once before).
	 */
	private boolean flow(boolean copies) {
		int n = this.options.flowOptions;
		int launches = this.options.launches;
		Device device = this.registry.device(0);
		HostBuffer input = device.allocateHost(5L * n * Double.BYTES);
		input.putDoubles(0, OptionBatch.gather(n, (i) -> option(i)));
		DeviceBuffer in = device.allocate(5L * n * Double.BYTES);
		DeviceBuffer out = device.allocate(2L * n * Double.BYTES);
		HostBuffer output = device.allocateHost(2L * n * Double.BYTES);
		LaunchConfig config = LaunchConfig.forThreads(n, BLOCK);
		long[] eager = new long[this.options.replays];
		long[] replayed = new long[this.options.replays];
		double[] eagerOut;
		double[] replayedOut;
		try (OffloadSession session = device.openSession()) {
			session.copy(input, in);
			for (int warm = 0; warm < 2; warm++) {
				for (int i = 0; i < eager.length; i++) {
					long start = System.nanoTime();
					if (copies) {
						session.copy(input, in);
					}
					for (int k = 0; k < launches; k++) {
						session.launch(BLACK_SCHOLES, config, n, in, out);
					}
					if (copies) {
						session.copy(out, output);
					}
					session.synchronize();
					eager[i] = System.nanoTime() - start;
				}
			}
			copyOut(session, copies, out, output);
			eagerOut = output.getDoubles(0, new double[2 * n]);
			session.fill(out, (byte) 0);
			output.putDoubles(0, new double[2 * n]);
			try (CapturedFlow flow = CapturedFlow.capture(session, (steps) -> {
				if (copies) {
					steps.copy(input, in);
				}
				for (int k = 0; k < launches; k++) {
					steps.launch(BLACK_SCHOLES, config, n, in, out);
				}
				if (copies) {
					steps.copy(out, output);
				}
			})) {
				timeReplays(flow, session, replayed);
			}
			copyOut(session, copies, out, output);
			replayedOut = output.getDoubles(0, new double[2 * n]);
		}
		finally {
			input.close();
			in.close();
			out.close();
			output.close();
		}
		LatencySummary eagerSummary = LatencySummary.of(eager);
		LatencySummary replayedSummary = LatencySummary.of(replayed);
		boolean identical = Arrays.equals(bits(eagerOut), bits(replayedOut));
		this.out.printf(Locale.ROOT, "## A flow of %d launches (%d options each)%s, then a synchronize; %d times%n%n",
				launches, n, copies ? " with a copy in and out" : "", this.options.replays);
		flowTable(eagerSummary, replayedSummary);
		this.out.printf(Locale.ROOT, "- replayed outputs bit-identical to eager: %s%n%n", identical ? "yes" : "NO");
		return identical;
	}

	/**
	 * The launch costs alone: {@code --launches} launches of a kernel that does nothing
	 * (the spin kernel for 0 ns), then a synchronize, eager against replayed.
	 */
	private void emptyFlow() {
		int launches = this.options.launches;
		KernelRef empty = SpinKernel.KERNEL;
		LaunchConfig one = LaunchConfig.of(1, 1);
		long[] eager = new long[this.options.replays];
		long[] replayed = new long[this.options.replays];
		try (OffloadSession session = this.registry.device(0).openSession()) {
			for (int warm = 0; warm < 2; warm++) {
				for (int i = 0; i < eager.length; i++) {
					long start = System.nanoTime();
					for (int k = 0; k < launches; k++) {
						session.launch(empty, one, 0L);
					}
					session.synchronize();
					eager[i] = System.nanoTime() - start;
				}
			}
			try (CapturedFlow flow = CapturedFlow.capture(session, (steps) -> {
				for (int k = 0; k < launches; k++) {
					steps.launch(empty, one, 0L);
				}
			})) {
				timeReplays(flow, session, replayed);
			}
		}
		this.out.printf(Locale.ROOT, "## %d launches of an empty kernel, then a synchronize; %d times%n%n", launches,
				this.options.replays);
		flowTable(LatencySummary.of(eager), LatencySummary.of(replayed));
		this.out.println();
	}

	/**
	 * Replays {@code flow} twice as many times as {@code times} holds, timing the second
	 * pass.
	 */
	private static void timeReplays(CapturedFlow flow, OffloadSession session, long[] times) {
		for (int warm = 0; warm < 2; warm++) {
			for (int i = 0; i < times.length; i++) {
				long start = System.nanoTime();
				flow.replay(session);
				session.synchronize();
				times[i] = System.nanoTime() - start;
			}
		}
	}

	private void flowTable(LatencySummary eager, LatencySummary replayed) {
		double speedup = (double) eager.p50Nanos() / Math.max(1, replayed.p50Nanos());
		this.out.println("| mode | p50 µs | p99 µs | max µs |");
		this.out.println("| --- | ---: | ---: | ---: |");
		this.out.printf(Locale.ROOT, "| eager launches | %.1f | %.1f | %.1f |%n", eager.p50Nanos() / 1e3,
				eager.p99Nanos() / 1e3, eager.maxNanos() / 1e3);
		this.out.printf(Locale.ROOT, "| captured flow replayed | %.1f | %.1f | %.1f |%n", replayed.p50Nanos() / 1e3,
				replayed.p99Nanos() / 1e3, replayed.maxNanos() / 1e3);
		this.out.printf(Locale.ROOT, "%n- replay %.1f× faster at the median (target ≥ 4×): %s%n", speedup,
				(speedup >= 4) ? "met" : "missed");
	}

	private static void copyOut(OffloadSession session, boolean copied, DeviceBuffer out, HostBuffer output) {
		if (!copied) {
			session.copy(out, output);
		}
		session.synchronize();
	}

	private void row(String mode, Run run) {
		this.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.0f |%n", mode, run.throughput(),
				run.latency.p50Nanos() / 1e3, run.latency.p99Nanos() / 1e3, run.latency.maxNanos() / 1e3);
	}

	private static long[][] bits(double[][] values) {
		long[][] bits = new long[values.length][];
		for (int i = 0; i < values.length; i++) {
			bits[i] = bits(values[i]);
		}
		return bits;
	}

	private static long[] bits(double[] values) {
		return Arrays.stream(values).mapToLong(Double::doubleToRawLongBits).toArray();
	}

	private record Round(long[] latencies, double[][] prices) {

	}

	private record Run(int requests, long elapsedNanos, LatencySummary latency, double[][] prices) {

		double throughput() {
			return this.requests * 1e9 / this.elapsedNanos;
		}

	}

	/**
	 * Prices a batch of options with one launch; each request gets its call and put.
	 */
	static final class OptionBatch implements BatchKernel<double[], double[]> {

		@Override
		public KernelRef kernel() {
			return BLACK_SCHOLES;
		}

		@Override
		public void validate(double[] option) {
			if (option == null || option.length != 5) {
				throw new IllegalArgumentException("an option is 5 numbers (spot, strike, maturity, rate, volatility)");
			}
		}

		@Override
		public void gather(List<double[]> options, KernelCall call) {
			int n = options.size();
			call.threads(n, BLOCK).arg(n).in(gather(n, options::get)).outDoubles(2 * n);
		}

		@Override
		public double[] slice(KernelResult result, int index) {
			double[] prices = result.doubles(0);
			return new double[] { prices[index], prices[prices.length / 2 + index] };
		}

		static double[] gather(int n, IntFunction<double[]> option) {
			double[] input = new double[5 * n];
			for (int i = 0; i < n; i++) {
				double[] values = option.apply(i);
				for (int field = 0; field < 5; field++) {
					input[field * n + i] = values[field];
				}
			}
			return input;
		}

	}

	/**
	 * The command line.
	 */
	record Options(String backend, int requests, int rounds, int maxDelayMicros, int launches, int flowOptions,
			int replays, int hostWorkers) {

		static Options parse(String[] args) {
			String backend = "host";
			int[] values = { 1000, 20, 200, 16, 32, 2000, 0 };
			List<String> names = List.of("--requests", "--rounds", "--max-delay-us", "--launches", "--flow-options",
					"--replays", "--host-workers");
			for (int i = 0; i < args.length; i += 2) {
				if (i + 1 >= args.length) {
					throw new IllegalArgumentException(args[i] + " needs a value");
				}
				if (args[i].equals("--backend")) {
					backend = args[i + 1];
					continue;
				}
				int at = names.indexOf(args[i]);
				if (at < 0) {
					throw new IllegalArgumentException(
							"Unknown option " + args[i] + "; use --backend or one of " + names);
				}
				values[at] = Integer.parseInt(args[i + 1]);
				if (values[at] < ((at == 6) ? 0 : 1)) {
					throw new IllegalArgumentException(args[i] + " must be positive, was " + values[at]);
				}
			}
			return new Options(backend, values[0], values[1], values[2], values[3], values[4], values[5], values[6]);
		}

	}

}
