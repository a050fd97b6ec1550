package dev.offload.benchmarks.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import jcuda.driver.CUcontext;
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
import dev.offload.StreamPoolStatistics;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;

/**
 * Asynchronous completion on a GPU against raw JCuda in the same process, an empty kernel
 * {@code <<<1,1>>>} per session.
 * <ol>
 * <li>In flight: one thread opens {@code N} sessions (a launch each) and closes them with
 * {@code closeAsync()}, a continuation on each future notes when it ran, then
 * {@code allOf(...).join()}. Against it, the raw query poller: the same launches on
 * {@code N} raw streams, one poller thread that queries each pending stream and notes
 * when it saw it done. Per round: sessions/s and the lag (from the launch returning to
 * the completion seen by its consumer) p50/p99; the first round runs on a cold pool (it
 * grows under the burst), the next ones warm, and the ratio of the first to the median of
 * the others is printed. The code paths warm up first on a registry of their own, closed
 * before the measured ones start, so that the cold round is the pool's, not the JIT's;
 * the warm-up's own first round against its last is printed too. This runs on
 * {@value #COLD_REGISTRIES} new registries one after the other, and the medians of their
 * ratios are the summary: warm rounds move by a tenth from one to the next, and a
 * registry has only one cold round. The threads run on the last registry.</li>
 * <li>Threads: {@code T} threads each run {@code S} light sessions back to back (1,024 by
 * default: a round of 64 threads then lasts about 170 ms on an H200; with 128 each it
 * lasted about 25 ms, which a few milliseconds of the machine's noise moved by a tenth):
 * raw launch + {@code cuStreamSynchronize} on a stream of its own, session launch +
 * {@code closeAsync().join()}, session launch + {@code close()}; the wall time and the
 * per-iteration p50/p99.</li>
 * </ol>
 * Usage in {@link #USAGE}.
 */
public final class AsyncThroughputBenchmark {

	static final String USAGE = """
			Usage: java -cp ... dev.offload.benchmarks.cuda.AsyncThroughputBenchmark [N] [ROUNDS] [T] [S] [options]
			  --backend cuda|ffm   Offload's binding (cuda: JCuda); the raw loops are JCuda's on both
			  N        sessions in flight (8192)
			  ROUNDS   rounds of each part (5)
			  T        threads of the threads part (64)
			  S        sessions of each of those threads (1024)
			""";

	/** The registries whose first in-flight round is measured on a cold pool. */
	private static final int COLD_REGISTRIES = 3;

	private static final String EMPTY_PTX = "dev/offload/benchmarks/cuda/empty.ptx";

	private final Device device;

	private final Kernel empty;

	private final CUcontext context;

	private final CUfunction rawFunction = new CUfunction();

	private final LaunchConfig one = LaunchConfig.of(1, 1);

	private AsyncThroughputBenchmark(Device device, byte[] ptx, String backend) {
		this.device = device;
		this.empty = device.loadModule(ModuleDefinition.builder("empty").image(ptx).build()).kernel("empty");
		try (OffloadSession session = device.openSession()) {
			this.context = RawContext.current(session, backend, 0);
		}
		CUmodule module = new CUmodule();
		check(JCudaDriver.cuModuleLoadData(module, Arrays.copyOf(ptx, ptx.length + 1)), "cuModuleLoadData");
		check(JCudaDriver.cuModuleGetFunction(this.rawFunction, module, "empty"), "cuModuleGetFunction");
	}

	public static void main(String[] args) throws InterruptedException {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		int sessions = options.sessions();
		int rounds = options.rounds();
		int threads = options.threads();
		int each = options.each();
		byte[] ptx = read();
		// The code paths warm up on a registry of their own, closed before the
		// measurement: the measured registry's first round then pays for a cold pool
		// (its streams made as the burst needs them), not for the JIT.
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(options.backend(), 0))
			.deviceIds(List.of(0))
			.build()) {
			Device device = registry.device(0);
			System.out.printf(Locale.ROOT, "Device 0: %s; Java %s; %d CPUs; CUDA_DEVICE_MAX_CONNECTIONS=%s%n%n",
					device.name(), Runtime.version(), Runtime.getRuntime().availableProcessors(),
					System.getenv().getOrDefault("CUDA_DEVICE_MAX_CONNECTIONS", "unset"));
			new AsyncThroughputBenchmark(device, ptx, options.backend()).warmUp(sessions, Math.max(2, rounds));
		}
		// One cold round per registry: the median over several tells the pool's cost
		// from the rounds' own spread (a tenth from one warm round to the next).
		double[] coldRatios = new double[COLD_REGISTRIES];
		double[] rawRatios = new double[COLD_REGISTRIES];
		for (int r = 0; r < COLD_REGISTRIES; r++) {
			try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(options.backend(), 0))
				.deviceIds(List.of(0))
				.build()) {
				AsyncThroughputBenchmark benchmark = new AsyncThroughputBenchmark(registry.device(0), ptx,
						options.backend());
				double[] ratios = benchmark.inFlight(sessions, rounds, r + 1);
				coldRatios[r] = ratios[0];
				rawRatios[r] = ratios[1];
				if (r == COLD_REGISTRIES - 1) {
					System.out.printf(Locale.ROOT,
							"cold pool round / warm median, median of %d registries: %.2f (target >= 0.8)%n",
							COLD_REGISTRIES, LatencySummary.median(coldRatios));
					System.out.printf(Locale.ROOT,
							"warm closeAsync / raw query poller, median of %d registries: %.2f (target >= 0.95)%n%n",
							COLD_REGISTRIES, LatencySummary.median(rawRatios));
					benchmark.threads(each, rounds, threads);
				}
			}
		}
	}

	/**
	 * Runs the in-flight rounds on a cold JVM, for the JIT, and prints what the first one
	 * cost against the last.
	 */
	private void warmUp(int sessions, int rounds) {
		System.out.printf(Locale.ROOT,
				"## JVM warm-up: %d sessions in flight, closeAsync, on a registry of its own%n%n", sessions);
		System.out.println("| mode | round | sessions/s | lag p50 µs | lag p99 µs | pool size | offload- threads |");
		System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
		double first = offloadRound(sessions, 1);
		double last = first;
		for (int round = 2; round <= rounds; round++) {
			last = offloadRound(sessions, round);
		}
		System.out.printf(Locale.ROOT, "%ncold JVM and cold pool, first round / last: %.2f%n%n", first / last);
	}

	/**
	 * Runs the in-flight rounds on this benchmark's registry, new, and returns the cold
	 * round against the warm median and the warm median against the raw query poller's.
	 */
	private double[] inFlight(int sessions, int rounds, int registry) throws InterruptedException {
		System.out.printf(Locale.ROOT,
				"## %d sessions in flight, closeAsync (round 1 on a cold pool of new registry %d, the JVM warm)%n%n",
				sessions, registry);
		System.out.println("| mode | round | sessions/s | lag p50 µs | lag p99 µs | pool size | offload- threads |");
		System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
		RawPoller raw = new RawPoller(sessions);
		double[] offloadRates = new double[rounds];
		double[] rawRates = new double[rounds];
		for (int round = 1; round <= rounds; round++) {
			offloadRates[round - 1] = offloadRound(sessions, round);
			rawRates[round - 1] = raw.round(round);
		}
		raw.stop();
		double warmOffload = LatencySummary.median(Arrays.copyOfRange(offloadRates, 1, rounds));
		double warmRaw = LatencySummary.median(Arrays.copyOfRange(rawRates, 1, rounds));
		System.out.printf(Locale.ROOT, "%ncold pool round / warm median: %.2f%n", offloadRates[0] / warmOffload);
		System.out.printf(Locale.ROOT, "raw cuStreamCreate: %.1f µs per stream (%d made by one thread)%n",
				raw.createNanos / 1e3 / sessions, sessions);
		System.out.printf(Locale.ROOT, "warm closeAsync / raw query poller: %.2f%n%n", warmOffload / warmRaw);
		return new double[] { offloadRates[0] / warmOffload, warmOffload / warmRaw };
	}

	private double offloadRound(int sessions, int round) {
		long[] launched = new long[sessions];
		long[] seen = new long[sessions];
		List<CompletableFuture<Void>> futures = new ArrayList<>(sessions);
		long start = System.nanoTime();
		for (int i = 0; i < sessions; i++) {
			int index = i;
			OffloadSession session = this.device.openSession();
			session.launch(this.empty, this.one);
			CompletableFuture<Void> closed = session.closeAsync();
			launched[i] = System.nanoTime();
			futures.add(closed.whenComplete((ignored, failure) -> seen[index] = System.nanoTime()));
		}
		CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
		double seconds = (System.nanoTime() - start) / 1e9;
		long threads = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("offload-"))
			.count();
		StreamPoolStatistics stats = this.device.streamPool().statistics();
		long[] lags = lags(launched, seen);
		System.out.printf(Locale.ROOT, "| offload closeAsync | %d | %.0f | %.1f | %.1f | %d | %d |%n", round,
				sessions / seconds, LatencySummary.percentile(lags, 50) / 1e3,
				LatencySummary.percentile(lags, 99) / 1e3, stats.size(), threads);
		return sessions / seconds;
	}

	private void threads(int each, int rounds, int threads) throws InterruptedException {
		System.out.printf(Locale.ROOT, "## %d threads, %d light sessions each%n%n", threads, each);
		System.out.println("| mode | round | wall ms | p50 µs | p99 µs |");
		System.out.println("| --- | ---: | ---: | ---: | ---: |");
		List<String> modes = List.of("raw launch + cuStreamSynchronize", "session closeAsync().join()",
				"session close()");
		double[][] walls = new double[modes.size()][rounds];
		for (int round = 1; round <= rounds; round++) {
			for (int mode = 0; mode < modes.size(); mode++) {
				walls[mode][round - 1] = threadsRound(modes.get(mode), mode, round, threads, each);
			}
		}
		double raw = LatencySummary.median(Arrays.copyOfRange(walls[0], 1, rounds));
		System.out.printf(Locale.ROOT, "%nwall closeAsync().join() / raw (median of rounds 2+): %.2f (target <= 1.1)%n",
				LatencySummary.median(Arrays.copyOfRange(walls[1], 1, rounds)) / raw);
		System.out.printf(Locale.ROOT, "wall close() / raw (median of rounds 2+): %.2f%n",
				LatencySummary.median(Arrays.copyOfRange(walls[2], 1, rounds)) / raw);
	}

	private double threadsRound(String name, int mode, int round, int threads, int each) throws InterruptedException {
		long[][] times = new long[threads][each];
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			long[] mine = times[t];
			Thread worker = new Thread(() -> {
				CUstream stream = null;
				if (mode == 0) {
					check(JCudaDriver.cuCtxSetCurrent(this.context), "cuCtxSetCurrent");
					stream = new CUstream();
					check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
				}
				awaitQuietly(start);
				for (int i = 0; i < each; i++) {
					long begin = System.nanoTime();
					if (mode == 0) {
						check(JCudaDriver.cuLaunchKernel(this.rawFunction, 1, 1, 1, 1, 1, 1, 0, stream, null, null),
								"cuLaunchKernel");
						check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
					}
					else {
						OffloadSession session = this.device.openSession();
						session.launch(this.empty, this.one);
						if (mode == 1) {
							session.closeAsync().join();
						}
						else {
							session.close();
						}
					}
					mine[i] = System.nanoTime() - begin;
				}
				if (stream != null) {
					check(JCudaDriver.cuStreamDestroy(stream), "cuStreamDestroy");
				}
			}, "bench-" + t);
			worker.start();
			workers.add(worker);
		}
		long begin = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		double wallMillis = (System.nanoTime() - begin) / 1e6;
		long[] all = Arrays.stream(times).flatMapToLong(Arrays::stream).sorted().toArray();
		System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f |%n", name, round, wallMillis,
				LatencySummary.percentile(all, 50) / 1e3, LatencySummary.percentile(all, 99) / 1e3);
		return wallMillis;
	}

	/**
	 * The raw baseline of the in-flight mode: raw streams from a lock+deque pool, one
	 * poller thread querying the pending ones.
	 */
	private final class RawPoller {

		private final int sessions;

		private final ArrayDeque<CUstream> free = new ArrayDeque<>();

		private final ConcurrentLinkedQueue<int[]> submitted = new ConcurrentLinkedQueue<>();

		private final CUstream[] byIndex;

		private final long[] launched;

		private final long[] seen;

		private final AtomicInteger done = new AtomicInteger();

		private final Thread poller;

		private volatile boolean stopped;

		private final long createNanos;

		RawPoller(int sessions) {
			this.sessions = sessions;
			this.byIndex = new CUstream[sessions];
			this.launched = new long[sessions];
			this.seen = new long[sessions];
			check(JCudaDriver.cuCtxSetCurrent(AsyncThroughputBenchmark.this.context), "cuCtxSetCurrent");
			long start = System.nanoTime();
			for (int i = 0; i < sessions; i++) {
				CUstream stream = new CUstream();
				check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
				this.free.add(stream);
			}
			this.createNanos = System.nanoTime() - start;
			this.poller = new Thread(this::poll, "raw-poller");
			this.poller.setDaemon(true);
			this.poller.start();
		}

		double round(int round) {
			this.done.set(0);
			check(JCudaDriver.cuCtxSetCurrent(AsyncThroughputBenchmark.this.context), "cuCtxSetCurrent");
			long start = System.nanoTime();
			for (int i = 0; i < this.sessions; i++) {
				CUstream stream;
				synchronized (this.free) {
					stream = this.free.poll();
				}
				this.byIndex[i] = stream;
				check(JCudaDriver.cuLaunchKernel(AsyncThroughputBenchmark.this.rawFunction, 1, 1, 1, 1, 1, 1, 0, stream,
						null, null), "cuLaunchKernel");
				this.launched[i] = System.nanoTime();
				this.submitted.add(new int[] { i });
			}
			while (this.done.get() < this.sessions) {
				Thread.onSpinWait();
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			long[] lags = lags(this.launched, this.seen);
			System.out.printf(Locale.ROOT, "| raw query poller | %d | %.0f | %.1f | %.1f | %d | - |%n", round,
					this.sessions / seconds, LatencySummary.percentile(lags, 50) / 1e3,
					LatencySummary.percentile(lags, 99) / 1e3, this.sessions);
			return this.sessions / seconds;
		}

		private void poll() {
			check(JCudaDriver.cuCtxSetCurrent(AsyncThroughputBenchmark.this.context), "cuCtxSetCurrent");
			List<int[]> pending = new ArrayList<>();
			while (!this.stopped) {
				int[] next;
				while ((next = this.submitted.poll()) != null) {
					pending.add(next);
				}
				for (int i = pending.size() - 1; i >= 0; i--) {
					int index = pending.get(i)[0];
					CUstream stream = this.byIndex[index];
					int result = JCudaDriver.cuStreamQuery(stream);
					if (result == CUresult.CUDA_ERROR_NOT_READY) {
						continue;
					}
					check(result, "cuStreamQuery");
					this.seen[index] = System.nanoTime();
					pending.set(i, pending.get(pending.size() - 1));
					pending.remove(pending.size() - 1);
					synchronized (this.free) {
						this.free.add(stream);
					}
					this.done.incrementAndGet();
				}
				Thread.onSpinWait();
			}
		}

		void stop() throws InterruptedException {
			this.stopped = true;
			this.poller.join();
			for (CUstream stream : this.free) {
				check(JCudaDriver.cuStreamDestroy(stream), "cuStreamDestroy");
			}
		}

	}

	private static long[] lags(long[] launched, long[] seen) {
		long[] lags = new long[launched.length];
		for (int i = 0; i < lags.length; i++) {
			lags[i] = seen[i] - launched[i];
		}
		Arrays.sort(lags);
		return lags;
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void check(int result, String call) {
		if (result != CUresult.CUDA_SUCCESS) {
			throw new IllegalStateException(call + " failed: " + CUresult.stringFor(result));
		}
	}

	private static byte[] read() {
		try (InputStream in = AsyncThroughputBenchmark.class.getClassLoader().getResourceAsStream(EMPTY_PTX)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + EMPTY_PTX);
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private record Options(int sessions, int rounds, int threads, int each, String backend) {

		static Options from(CommandLine line) {
			return new Options(line.intArgument(0, "N", 8192), line.intArgument(1, "ROUNDS", 5),
					line.intArgument(2, "T", 64), line.intArgument(3, "S", 1024),
					line.choice("--backend", "cuda", "ffm"));
		}

	}

}
