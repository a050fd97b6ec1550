package dev.offload.benchmarks;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import dev.offload.CapturedFlow;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.BatchFunction;
import dev.offload.template.BatchKernel;
import dev.offload.template.BatchPolicy;
import dev.offload.template.Batcher;
import dev.offload.template.KernelCall;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadTemplate;

/**
 * Small work at GPU scale, on the host backend or CUDA: (1) {@code --requests} concurrent
 * callers of one-option price requests, each on a thread of its own ({@code --callers
 * platform|virtual}) and one request at a time, unbatched (a launch per request) against
 * batched ({@link Batcher}, {@code --max-delay-us}) and against a ceiling, a batcher
 * whose batches do no device work (what the callers can pass through a batcher on this
 * machine at all). Two shapes: bursts, the callers parked on a phaser and released
 * together for each of {@code --rounds} rounds (a round from its first request's start to
 * its last result; the release spread of waking the parked callers is printed), and
 * sustained, the callers making requests back to back for {@code --seconds}, counted in
 * the window after a ramp of {@code --ramp-ms}. It prints throughput, mean batch size,
 * p50/p99 and compares every result bit for bit with its option priced alone. (2) a flow
 * of {@code --launches} Black-Scholes launches with a copy in and out, eager against
 * replayed ({@link CapturedFlow}), with the outputs compared. It prints Markdown with the
 * targets (batched throughput at least 10 times unbatched; batched p99 within max delay +
 * one batch kernel + unbatched p99; replay at least 4 times faster) and exits 1 if a
 * result differs. <pre>
 * java -cp ... dev.offload.benchmarks.SmallWorkBenchmark --backend cuda --requests 1000 --rounds 20 --seconds 3
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
		BatchPolicy policy = BatchPolicy.DEFAULTS.withMaxDelay(Duration.ofNanos(options.maxDelayMicros * 1000L));
		if (options.preferredBatch > 0) {
			policy = policy.withPreferredBatchSizes(options.preferredBatch);
		}
		this.template = new OffloadTemplate(this.registry, policy, (batch) -> {
		});
	}

	/**
	 * Runs the benchmark.
	 * @param args the options, in {@link Options#USAGE}
	 * @throws Exception if a part fails
	 */
	public static void main(String[] args) throws Exception {
		Options options = CommandLine.parse(args, Options.USAGE, Options::from);
		if (!new SmallWorkBenchmark(options, System.out).run()) {
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
			this.out.printf(Locale.ROOT,
					"# Small work: %s backend, %s%n%n%d CPUs, Java %s, virtual-thread scheduler parallelism %s%n%n",
					this.options.backend, this.registry.device(0).name(), Runtime.getRuntime().availableProcessors(),
					Runtime.version().feature(),
					System.getProperty("jdk.virtualThreadScheduler.parallelism", "the default (one per CPU)"));
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
		// Each request's reference: its option priced alone, one launch at a time.
		double[][] reference = new double[requests][];
		for (int i = 0; i < requests; i++) {
			reference[i] = priceAlone(option(i));
		}
		BatchFunction<Integer, double[]> noDeviceWork = (indexes) -> CompletableFuture
			.completedFuture(indexes.stream().map((i) -> reference[i]).toList());
		try (Batcher<double[], double[]> batcher = this.template.batcher(new OptionBatch());
				Batcher<Integer, double[]> ceiling = this.template.batcher("no-device-work", noDeviceWork,
						this.template.batchPolicy())) {
			IntFunction<double[]> alone = (i) -> priceAlone(option(i));
			IntFunction<double[]> batched = (i) -> batcher.submit(option(i)).join();
			IntFunction<double[]> empty = (i) -> ceiling.submit(i).join();
			Run unbatchedBursts = bursts(alone, reference, null);
			Run batchedBursts = bursts(batched, reference, batcher);
			Run ceilingBursts = bursts(empty, reference, ceiling);
			Run unbatchedSustained = sustained(alone, reference, null);
			Run batchedSustained = sustained(batched, reference, batcher);
			Run ceilingSustained = sustained(empty, reference, ceiling);
			long kernelNanos = oneBatchKernel(requests);
			List<Run> runs = List.of(unbatchedBursts, batchedBursts, ceilingBursts, unbatchedSustained,
					batchedSustained, ceilingSustained);
			long compared = runs.stream().mapToLong(Run::compared).sum();
			long differing = runs.stream().mapToLong(Run::differing).sum();
			String delay = "max delay " + this.options.maxDelayMicros + " µs"
					+ ((this.options.preferredBatch > 0) ? ", preferred " + this.options.preferredBatch : "");
			this.out.printf(Locale.ROOT, "## %d concurrent one-option price requests, %s callers%n%n", requests,
					this.options.callers);
			this.out.println("| mode | requests/s | mean batch | p50 µs | p99 µs | max µs | release spread µs |");
			this.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
			row("unbatched (one launch each), bursts", unbatchedBursts);
			row("batched (" + delay + "), bursts", batchedBursts);
			row("batcher with no device work (ceiling), bursts", ceilingBursts);
			row("unbatched (one launch each), sustained", unbatchedSustained);
			row("batched (" + delay + "), sustained", batchedSustained);
			row("batcher with no device work (ceiling), sustained", ceilingSustained);
			this.out.printf(Locale.ROOT, "%nEach of the %d callers (%s threads) makes one request at a time. "
					+ "Bursts: the callers wait on a phaser and are released together, %d rounds after one of "
					+ "warm-up; a round lasts from its first request to its last result, and waking the parked "
					+ "callers spreads the round's starts over the release spread (the median round's, included "
					+ "in the round). Sustained: each caller makes requests back to back for %d s; those that "
					+ "end in the first %d ms (the ramp) and after the stop are left out. The ceiling batcher's "
					+ "batches do no device work (each result is ready at once): what these callers can pass "
					+ "through a batcher on this machine, whatever the device.%n", requests, this.options.callers,
					this.options.rounds, this.options.seconds, this.options.rampMillis);
			this.out.printf(Locale.ROOT, "One batch kernel of %d options: %d µs (median), copies included.%n", requests,
					kernelNanos / 1000);
			targets("bursts", unbatchedBursts, batchedBursts, ceilingBursts, kernelNanos);
			targets("sustained", unbatchedSustained, batchedSustained, ceilingSustained, kernelNanos);
			this.out.printf(Locale.ROOT,
					"- batched prices bit-identical to unbatched: %s (%d results compared with the prices of "
							+ "the same options priced alone, %d differ)%n%n",
					(differing == 0) ? "yes" : "NO", compared, differing);
			return differing == 0;
		}
	}

	private void targets(String mode, Run unbatched, Run batched, Run ceiling, long kernelNanos) {
		double ratio = batched.throughput() / unbatched.throughput();
		long bound = this.options.maxDelayMicros * 1000L + kernelNanos + unbatched.latency.p99Nanos();
		this.out.printf(Locale.ROOT, "- %s: throughput ratio %.1f× (target ≥ 10×): %s; the ceiling is %.1f×%n", mode,
				ratio, (ratio >= 10) ? "met" : "missed", ceiling.throughput() / unbatched.throughput());
		this.out.printf(Locale.ROOT, "- %s: batched p99 %d µs ≤ max delay + one kernel + unbatched p99 = %d µs: %s%n",
				mode, batched.latency.p99Nanos() / 1000, bound / 1000,
				(batched.latency.p99Nanos() <= bound) ? "met" : "missed");
	}

	/**
	 * Bursts: the callers wait on a phaser and are released together, round after round
	 * (the first a warm-up); a round lasts from its first request's start to its last
	 * result.
	 */
	private Run bursts(IntFunction<double[]> price, double[][] reference, @Nullable Batcher<?, ?> batcher)
			throws Exception {
		int requests = this.options.requests;
		int rounds = this.options.rounds + 1;
		Phaser start = new Phaser(requests + 1);
		Phaser done = new Phaser(requests + 1);
		Tally[] tallies = new Tally[requests];
		Callers.Running callers = this.options.callers.start(requests, (index) -> {
			Tally tally = new Tally(reference[index], rounds);
			tallies[index] = tally;
			for (int round = 0; round < rounds; round++) {
				start.arriveAndAwaitAdvance();
				long begun = System.nanoTime();
				tally.price(price, index);
				long ended = System.nanoTime();
				tally.round(round, begun, ended);
				done.arrive();
			}
		});
		long[] before = new long[2];
		for (int round = 0; round < rounds; round++) {
			start.arriveAndAwaitAdvance();
			done.arriveAndAwaitAdvance();
			if (round == 0) {
				before = batches(batcher);
			}
		}
		long[] after = batches(batcher);
		callers.join();
		long elapsed = 0;
		long[] spreads = new long[rounds - 1];
		for (int round = 1; round < rounds; round++) {
			long first = Long.MAX_VALUE;
			long lastStart = Long.MIN_VALUE;
			long last = Long.MIN_VALUE;
			for (Tally tally : tallies) {
				first = Math.min(first, tally.starts[round]);
				lastStart = Math.max(lastStart, tally.starts[round]);
				last = Math.max(last, tally.ends[round]);
			}
			elapsed += last - first;
			spreads[round - 1] = lastStart - first;
		}
		long[] latencies = Tally.latencies(tallies);
		return Run.of(latencies.length, elapsed, latencies, before, after, tallies, LatencySummary.of(spreads));
	}

	/**
	 * Sustained: each caller makes requests back to back until the stop; the requests
	 * that end in the measurement window (after the ramp, before the stop) are counted.
	 */
	private Run sustained(IntFunction<double[]> price, double[][] reference, @Nullable Batcher<?, ?> batcher)
			throws Exception {
		int requests = this.options.requests;
		CountDownLatch go = new CountDownLatch(1);
		long[] window = new long[2];
		Tally[] tallies = new Tally[requests];
		Callers.Running callers = this.options.callers.start(requests, (index) -> {
			Tally tally = new Tally(reference[index], 0);
			tallies[index] = tally;
			go.await();
			long from = window[0];
			long to = window[1];
			while (true) {
				long begun = System.nanoTime();
				tally.price(price, index);
				long ended = System.nanoTime();
				if (ended >= to) {
					break;
				}
				if (ended >= from) {
					tally.record(ended - begun);
				}
			}
		});
		long now = System.nanoTime();
		window[0] = now + this.options.rampMillis * 1_000_000L;
		window[1] = now + this.options.seconds * 1_000_000_000L;
		go.countDown();
		sleepUntil(window[0]);
		long[] before = batches(batcher);
		sleepUntil(window[1]);
		long[] after = batches(batcher);
		callers.join();
		long[] latencies = Tally.latencies(tallies);
		return Run.of(latencies.length, window[1] - window[0], latencies, before, after, tallies, LatencySummary.EMPTY);
	}

	private static void sleepUntil(long nanoTime) {
		for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	/** The batches and items a batcher has run so far; zeros without one. */
	private static long[] batches(@Nullable Batcher<?, ?> batcher) {
		if (batcher == null) {
			return new long[2];
		}
		Batcher.Statistics statistics = batcher.statistics();
		return new long[] { statistics.batches(), statistics.items() };
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
		String batch = (run.meanBatch > 0) ? String.format(Locale.ROOT, "%.1f", run.meanBatch) : "–";
		String spread = (run.spread.count() > 0) ? String.format(Locale.ROOT, "%.0f", run.spread.p50Nanos() / 1e3)
				: "–";
		this.out.printf(Locale.ROOT, "| %s | %.0f | %s | %.0f | %.0f | %.0f | %s |%n", mode, run.throughput(), batch,
				run.latency.p50Nanos() / 1e3, run.latency.p99Nanos() / 1e3, run.latency.maxNanos() / 1e3, spread);
	}

	private static long[] bits(double[] values) {
		return Arrays.stream(values).mapToLong(Double::doubleToRawLongBits).toArray();
	}

	/**
	 * One measured run of the callers.
	 *
	 * @param requests the requests counted
	 * @param elapsedNanos the time they took
	 * @param latency their latencies
	 * @param meanBatch the mean batch size of the batches run meanwhile, 0 unbatched
	 * @param compared the results compared with their reference (every one)
	 * @param differing those that differ, or failed
	 * @param spread how long releasing the callers took in a round (bursts)
	 */
	private record Run(long requests, long elapsedNanos, LatencySummary latency, double meanBatch, long compared,
			long differing, LatencySummary spread) {

		static Run of(long requests, long elapsedNanos, long[] latencies, long[] before, long[] after, Tally[] tallies,
				LatencySummary spread) {
			long batches = after[0] - before[0];
			double meanBatch = (batches == 0) ? 0 : (double) (after[1] - before[1]) / batches;
			long compared = Arrays.stream(tallies).mapToLong((tally) -> tally.compared).sum();
			long differing = Arrays.stream(tallies).mapToLong((tally) -> tally.differing).sum();
			return new Run(requests, elapsedNanos, LatencySummary.of(latencies), meanBatch, compared, differing,
					spread);
		}

		double throughput() {
			return this.requests * 1e9 / this.elapsedNanos;
		}

	}

	/**
	 * One caller's results, written by that caller alone: its latencies, its burst
	 * rounds' start and end, and its results compared bit for bit with its option's
	 * reference prices.
	 */
	private static final class Tally {

		private final double[] expected;

		private final long[] starts;

		private final long[] ends;

		private long[] latencies = new long[64];

		private int count;

		private long compared;

		private long differing;

		private @Nullable RuntimeException failure;

		Tally(double[] expected, int rounds) {
			this.expected = expected;
			this.starts = new long[rounds];
			this.ends = new long[rounds];
		}

		/** Prices the caller's option and compares the result with the reference. */
		void price(IntFunction<double[]> price, int index) {
			this.compared++;
			try {
				double[] prices = price.apply(index);
				if (!sameBits(prices, this.expected)) {
					this.differing++;
				}
			}
			catch (RuntimeException ex) {
				this.differing++;
				if (this.failure == null) {
					this.failure = ex;
				}
			}
		}

		void round(int round, long begun, long ended) {
			this.starts[round] = begun;
			this.ends[round] = ended;
			if (round > 0) {
				record(ended - begun);
			}
		}

		void record(long nanos) {
			if (this.count == this.latencies.length) {
				this.latencies = Arrays.copyOf(this.latencies, 2 * this.count);
			}
			this.latencies[this.count++] = nanos;
		}

		/**
		 * Gathers the callers' latencies, failing with the first caller's failure.
		 * @param tallies the callers' tallies
		 * @return the latencies
		 */
		static long[] latencies(Tally[] tallies) {
			int total = 0;
			for (Tally tally : tallies) {
				if (tally.failure != null) {
					throw new IllegalStateException("A request failed", tally.failure);
				}
				total += tally.count;
			}
			long[] all = new long[total];
			int at = 0;
			for (Tally tally : tallies) {
				System.arraycopy(tally.latencies, 0, all, at, tally.count);
				at += tally.count;
			}
			return all;
		}

		private static boolean sameBits(double[] actual, double[] expected) {
			if (actual.length != expected.length) {
				return false;
			}
			for (int i = 0; i < actual.length; i++) {
				if (Double.doubleToRawLongBits(actual[i]) != Double.doubleToRawLongBits(expected[i])) {
					return false;
				}
			}
			return true;
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
	 *
	 * @param backend {@code host} or {@code cuda}
	 * @param callers the callers' threads
	 * @param requests the concurrent callers, one request each at a time
	 * @param rounds the bursts, after one of warm-up
	 * @param seconds how long the sustained callers run, ramp included
	 * @param rampMillis the start of the sustained run left out
	 * @param maxDelayMicros the batcher's max delay
	 * @param launches the launches of a flow
	 * @param flowOptions the options of a flow's launch
	 * @param replays how many times a flow runs
	 * @param hostWorkers the host backend's workers, 0 for its default
	 * @param preferredBatch the batcher's preferred batch size, 0 for none (the default
	 * policy)
	 */
	record Options(String backend, Callers callers, int requests, int rounds, int seconds, int rampMillis,
			int maxDelayMicros, int launches, int flowOptions, int replays, int hostWorkers, int preferredBatch) {

		static final String USAGE = """
				Usage: java -cp ... dev.offload.benchmarks.SmallWorkBenchmark [options]
				  --backend host|cuda|ffm     the backend (host)
				  --callers platform|virtual  the callers' threads; virtual needs Java 21+ (platform)
				  --requests N                concurrent callers, one request each at a time (1000)
				  --rounds N                  bursts, after one of warm-up (20)
				  --seconds N                 how long the sustained callers run, ramp included (3)
				  --ramp-ms N                 the start of the sustained run left out (500)
				  --max-delay-us N            the batcher's max delay (200)
				  --launches N                the launches of a flow (16)
				  --flow-options N            the options of a flow's launch (32)
				  --replays N                 how many times a flow runs (2000)
				  --host-workers N            the host backend's workers, 0 for its default (0)
				  --preferred-batch N         the batcher's preferred batch size, 0 for none (0)
				""";

		static Options from(CommandLine line) {
			Options options = new Options(line.choice("--backend", "host", "cuda", "ffm"),
					Callers.parse(line.choice("--callers", "platform", "virtual")),
					line.intOption("--requests", 1000, 1), line.intOption("--rounds", 20, 1),
					line.intOption("--seconds", 3, 1), line.intOption("--ramp-ms", 500, 1),
					line.intOption("--max-delay-us", 200, 1), line.intOption("--launches", 16, 1),
					line.intOption("--flow-options", 32, 1), line.intOption("--replays", 2000, 1),
					line.intOption("--host-workers", 0, 0), line.intOption("--preferred-batch", 0, 0));
			if (options.rampMillis >= 1000L * options.seconds) {
				throw new IllegalArgumentException("--ramp-ms (" + options.rampMillis
						+ ") must be shorter than --seconds (" + options.seconds + " s)");
			}
			return options;
		}

	}

}
