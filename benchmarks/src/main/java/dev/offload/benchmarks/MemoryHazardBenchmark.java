package dev.offload.benchmarks;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.MemoryConfig;
import dev.offload.MemoryStatistics;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadTemplate;

/**
 * Memory as a hazard, measured in three modes (Markdown on standard output):
 * <ul>
 * <li>{@code hazard}: {@code --threads} threads make fluent calls ({@code in(float[])},
 * {@code outFloats(n)}) whose sizes vary log-uniformly from {@code --min-bytes} to
 * {@code --max-bytes}, while a {@code --kernel-ms} kernel always runs on another stream;
 * Offload synchronous ({@code run()}) and asynchronous ({@code runAsync().join()})
 * against a floor of the same calls made through the backend SPI (the driver calls
 * {@code cuMemcpyAsync}, {@code cuLaunchKernel}, {@code cuStreamSynchronize} and nothing
 * else) with per-thread streams and buffers preallocated at the largest size. Prints p50,
 * p99, calls/s and the ratios to the floor.</li>
 * <li>{@code soak}: {@code --soak-seconds} of the same varying calls; after the first
 * tenth (warm-up), counts the driver allocations and frees and the calls that can
 * synchronize the device made on request or completion threads
 * ({@link MemoryStatistics#synchronizingCalls()}).</li>
 * <li>{@code flood}: 10% of sessions each want 30% of the budget, the rest are small
 * fluent calls; with the budget on, with it off, and without the big sessions: the errors
 * that reach callers by type, the small calls' p50 and p99, and calls/s; then without the
 * budget at fixed concurrencies (1, 2, 4, ... threads below {@code --threads}), and the
 * sessions/s with the budget against the best of them.</li>
 * </ul>
 * On the host backend ({@code --backend host}, the default) the emulated device has
 * {@code --host-memory} bytes; the kernel touches the first 1024 elements on both
 * backends, so that the time is in the copies and the memory path. Usage in
 * {@link Options#USAGE}.
 */
public final class MemoryHazardBenchmark {

	private static final String SCALE = "scale";

	private static final int TOUCHED = 1024;

	private static final ModuleDefinition MODULE = ModuleDefinition.builder("offload-benchmarks-scale")
		.imageResource("kernels/scale.ptx", MemoryHazardBenchmark.class.getClassLoader())
		.hostKernel(SCALE, List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER),
				MemoryHazardBenchmark::scale)
		.build();

	private static final KernelRef SCALE_KERNEL = KernelRef.of(MODULE, SCALE);

	private static final KernelRef SPIN_KERNEL = SpinKernel.KERNEL;

	private final Options options;

	private final float[][] inputs;

	private MemoryHazardBenchmark(Options options) {
		this.options = options;
		// Shared, read-only inputs of log-uniform sizes: every strategy draws the same.
		SplittableRandom random = new SplittableRandom(42);
		this.inputs = new float[64][];
		for (int i = 0; i < this.inputs.length; i++) {
			this.inputs[i] = new float[(int) (logUniform(random, options.minBytes, options.maxBytes) / Float.BYTES)];
		}
	}

	/**
	 * Runs the modes asked for.
	 * @param args the options, in {@link Options#USAGE}
	 * @throws Exception if a run fails
	 */
	public static void main(String[] args) throws Exception {
		Options options = CommandLine.parse(args, Options.USAGE, Options::from);
		MemoryHazardBenchmark benchmark = new MemoryHazardBenchmark(options);
		System.out.printf(Locale.ROOT, "# Memory hazard benchmark (%s, %s)%n%n", options.backend,
				OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS));
		System.out.printf(Locale.ROOT,
				"%d threads, sizes log-uniform %d B to %d B, a %d ms kernel always running on another stream%n%n",
				options.threads, options.minBytes, options.maxBytes, options.kernelMillis);
		if (options.mode.equals("hazard") || options.mode.equals("all")) {
			benchmark.hazard();
		}
		if (options.mode.equals("flood") || options.mode.equals("all")) {
			benchmark.flood();
		}
		if (options.mode.equals("soak") || options.mode.equals("all")) {
			benchmark.soak();
		}
		System.exit(0);
	}

	private void hazard() throws Exception {
		Result floor;
		Result sync;
		Result async;
		try (DeviceRegistry registry = registry(MemoryConfig.DEFAULTS)) {
			try (Background background = new Background(registry)) {
				floor = measure("floor: backend SPI, per-thread preallocated buffers", new Floor(registry),
						this.options.seconds);
				OffloadTemplate template = new OffloadTemplate(registry);
				measure("warm-up", (thread, random) -> fluent(template, random, false), 2);
				sync = measure("Offload run()", (thread, random) -> fluent(template, random, false),
						this.options.seconds);
				async = measure("Offload runAsync().join()", (thread, random) -> fluent(template, random, true),
						this.options.seconds);
			}
			System.out.println("| strategy | calls | p50 ms | p99 ms | calls/s | p50 / floor | p99 / floor | "
					+ "calls/s / floor |");
			System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
			for (Result result : List.of(floor, sync, async)) {
				System.out.println(result.row(floor));
			}
			System.out.println();
			System.out.println("Targets (H200): p50 <= 1.2x and p99 <= 2x the floor.");
			System.out.println();
			System.out.println("Memory after the runs: " + registry.device(0).memoryStatistics());
			System.out.println();
		}
	}

	private void soak() throws Exception {
		try (DeviceRegistry registry = registry(MemoryConfig.DEFAULTS)) {
			Device device = registry.device(0);
			OffloadTemplate template = new OffloadTemplate(registry);
			long warmUp = Math.max(2, this.options.soakSeconds / 10);
			try (Background background = new Background(registry)) {
				measure("soak warm-up", (thread, random) -> fluent(template, random, (thread & 1) == 1), warmUp);
				MemoryStatistics before = device.memoryStatistics();
				Result run = measure("soak", (thread, random) -> fluent(template, random, (thread & 1) == 1),
						this.options.soakSeconds - warmUp);
				MemoryStatistics after = device.memoryStatistics();
				System.out.printf(Locale.ROOT, "## Soak: %d s after %d s of warm-up, %d calls (half run(), half "
						+ "runAsync().join()), p50 %.2f ms, p99 %.2f ms (of each thread's last 65,536 calls)%n%n",
						this.options.soakSeconds - warmUp, warmUp, run.calls, run.p50Millis(), run.p99Millis());
				System.out.println("| after warm-up | count |");
				System.out.println("| --- | --- |");
				row("calls that can synchronize the device, on request or completion threads",
						after.synchronizingCalls() - before.synchronizingCalls());
				row("page-locked allocations (cuMemHostAlloc)", after.hostAllocations() - before.hostAllocations());
				row("page-locked frees (cuMemFreeHost)", after.hostFrees() - before.hostFrees());
				row("device allocations (stream-ordered)", after.deviceAllocations() - before.deviceAllocations());
				row("device frees (stream-ordered, memory thread)", after.deviceFrees() - before.deviceFrees());
				row("cache hits", after.cacheHits() - before.cacheHits());
				row("cache misses", after.cacheMisses() - before.cacheMisses());
				System.out.println();
			}
		}
	}

	private void flood() throws Exception {
		int threads = this.options.threads;
		System.out.println("## Flood: 10% of sessions want 30% of the budget");
		System.out.println();
		System.out
			.println("| run | threads | small calls | small p50 ms | small p99 ms | small calls/s | sessions/s (all) "
					+ "| out of memory | budget exceeded |");
		System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
		double withBudget = floodRun("budget on (90%)", MemoryConfig.DEFAULTS, true, threads);
		floodRun("budget off", MemoryConfig.UNLIMITED, true, threads);
		floodRun("small sessions only", MemoryConfig.DEFAULTS, false, threads);
		// The throughput an operator could get without a budget by fixing the concurrency
		// (the threads), for the same mix.
		double best = 0;
		int bestThreads = 0;
		for (int fixed = 1; fixed < threads; fixed *= 2) {
			double sessions = floodRun("budget off, fixed concurrency", MemoryConfig.UNLIMITED, true, fixed);
			if (sessions > best) {
				best = sessions;
				bestThreads = fixed;
			}
		}
		System.out.println();
		System.out.printf(Locale.ROOT,
				"Sessions/s with the budget at %d threads against the best fixed concurrency without it (%d threads): "
						+ "%.2f (target >= 0.9)%n%n",
				threads, bestThreads, withBudget / best);
	}

	/**
	 * One flood run.
	 * @return the sessions of both kinds that succeeded, per second
	 */
	private double floodRun(String name, MemoryConfig memory, boolean big, int threads) throws Exception {
		try (DeviceRegistry registry = registry(memory)) {
			Device device = registry.device(0);
			long bigBytes = (long) (MemoryConfig.DEFAULTS.budgetFor(device.info().totalMemoryBytes()) * 0.3);
			OffloadTemplate template = new OffloadTemplate(registry);
			LongAdder outOfMemory = new LongAdder();
			LongAdder budgetExceeded = new LongAdder();
			LongAdder bigDone = new LongAdder();
			Result result = measure(name, threads, (thread, random) -> {
				try {
					if (big && random.nextInt(10) == 0) {
						bigSession(device, bigBytes);
						bigDone.increment();
						return false;
					}
					fluent(template, random, false);
					return true;
				}
				catch (DeviceOutOfMemoryException ex) {
					outOfMemory.increment();
				}
				catch (BackendException ex) {
					if (!ex.isOutOfMemory()) {
						throw ex;
					}
					outOfMemory.increment();
				}
				catch (MemoryBudgetExceededException ex) {
					budgetExceeded.increment();
				}
				return false;
			}, this.options.seconds);
			double sessions = result.callsPerSecond() + bigDone.sum() / result.seconds();
			System.out.printf(Locale.ROOT, "| %s | %d | %d | %.2f | %.2f | %.0f | %.0f | %d | %d |%n", name, threads,
					result.calls, result.p50Millis(), result.p99Millis(), result.callsPerSecond(), sessions,
					outOfMemory.sum(), budgetExceeded.sum());
			return sessions;
		}
	}

	/**
	 * A big session: holds {@code bytes} of device memory while a 1 ms kernel runs (not
	 * filled: on the host backend a fill of a gigabyte is a Java loop, not a memset).
	 */
	private static void bigSession(Device device, long bytes) {
		try (OffloadSession session = device.openSession()) {
			session.allocate(bytes);
			session.launch(device.kernel(SPIN_KERNEL), LaunchConfig.of(1, 1), 1_000_000L);
		}
	}

	private boolean fluent(OffloadTemplate template, SplittableRandom random, boolean async) {
		float[] input = this.inputs[random.nextInt(this.inputs.length)];
		var call = template.kernel(SCALE_KERNEL)
			.threads(Math.min(input.length, TOUCHED))
			.arg(Math.min(input.length, TOUCHED))
			.arg(2f)
			.in(input)
			.outFloats(input.length);
		KernelResult result = async ? call.runAsync().join() : call.run();
		return result.floats(0).length == input.length;
	}

	private DeviceRegistry registry(MemoryConfig memory) {
		Backend backend = this.options.backend.equals("host")
				? HostBackend.builder().memoryBytes(this.options.hostMemory).build()
				: Backends.create(this.options.backend, 0);
		return DeviceRegistry.builder(backend).memory(memory).bufferCacheMaxBytes(this.options.cacheBytes).build();
	}

	private Result measure(String name, Call call, long seconds) throws Exception {
		return measure(name, this.options.threads, call, seconds);
	}

	private Result measure(String name, int threads, Call call, long seconds) throws Exception {
		long[][] samples = new long[threads][];
		// Every call counted; the latencies of each thread's last 65,536 calls kept (a
		// ring).
		long[] counts = new long[threads];
		AtomicBoolean stop = new AtomicBoolean();
		CountDownLatch done = new CountDownLatch(threads);
		List<Throwable> failures = new ArrayList<>();
		long start = System.nanoTime();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			Thread worker = new Thread(() -> {
				SplittableRandom random = new SplittableRandom(1000 + thread);
				long[] mine = new long[1 << 16];
				long count = 0;
				try {
					while (!stop.get()) {
						long begin = System.nanoTime();
						boolean counted = call.run(thread, random);
						long took = System.nanoTime() - begin;
						if (counted) {
							mine[(int) (count++ & (mine.length - 1))] = took;
						}
					}
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
				finally {
					samples[thread] = mine;
					counts[thread] = count;
					done.countDown();
				}
			}, "memory-hazard-" + t);
			worker.start();
		}
		Thread.sleep(Duration.ofSeconds(seconds).toMillis());
		stop.set(true);
		done.await();
		double elapsed = (System.nanoTime() - start) / 1e9;
		if (!failures.isEmpty()) {
			throw new IllegalStateException(name + " failed: " + failures.get(0), failures.get(0));
		}
		long total = 0;
		int kept = 0;
		for (int t = 0; t < threads; t++) {
			total += counts[t];
			kept += (int) Math.min(counts[t], samples[t].length);
		}
		long[] all = new long[kept];
		int at = 0;
		for (int t = 0; t < threads; t++) {
			int length = (int) Math.min(counts[t], samples[t].length);
			System.arraycopy(samples[t], 0, all, at, length);
			at += length;
		}
		return new Result(name, total, LatencySummary.of(all), total / elapsed, elapsed);
	}

	private static void row(String name, long count) {
		System.out.printf(Locale.ROOT, "| %s | %d |%n", name, count);
	}

	private static long logUniform(SplittableRandom random, long min, long max) {
		double low = Math.log(min);
		double high = Math.log(max);
		return Math.max(Float.BYTES, (long) Math.exp(low + random.nextDouble() * (high - low)));
	}

	private static void scale(HostThread thread) {
		int i = thread.globalIdX();
		if (i < thread.intArg(0)) {
			thread.floats(3).put(i, thread.floatArg(1) * thread.floats(2).get(i));
		}
	}

	/**
	 * One call of a strategy.
	 */
	@FunctionalInterface
	private interface Call {

		/**
		 * Makes one call.
		 * @return whether its latency counts
		 */
		boolean run(int thread, SplittableRandom random) throws Exception;

	}

	/**
	 * The floor: the same copies and launch through the backend SPI on per-thread streams
	 * and buffers preallocated at the largest size; no pool, no cache, no budget.
	 */
	private final class Floor implements Call {

		private final BackendDevice device;

		private final BackendKernel kernel;

		private final ConcurrentHashMap<Integer, NativeMemory[]> buffers = new ConcurrentHashMap<>();

		private final ConcurrentHashMap<Integer, BackendStream> streams = new ConcurrentHashMap<>();

		Floor(DeviceRegistry registry) {
			this.device = registry.backend().devices().get(0);
			this.kernel = this.device.loadModule(MODULE).kernels().get(SCALE);
		}

		@Override
		public boolean run(int thread, SplittableRandom random) {
			long max = MemoryHazardBenchmark.this.options.maxBytes;
			NativeMemory[] own = this.buffers.computeIfAbsent(thread,
					(key) -> new NativeMemory[] { this.device.allocateHost(max), this.device.allocateDevice(max),
							this.device.allocateDevice(max), this.device.allocateHost(max) });
			BackendStream stream = this.streams.computeIfAbsent(thread,
					(key) -> this.device.createStream(this.device.info().leastPriority()));
			float[] input = MemoryHazardBenchmark.this.inputs[random.nextInt(MemoryHazardBenchmark.this.inputs.length)];
			long bytes = (long) input.length * Float.BYTES;
			own[0].hostView().asFloatBuffer().put(0, input);
			stream.copy(own[0], 0, own[1], 0, bytes);
			int touched = Math.min(input.length, TOUCHED);
			stream.launch(this.kernel, (touched + 255) / 256, 1, 1, Math.min(touched, 256), 1, 1, 0,
					new Object[] { touched, 2f, own[1], own[2] });
			stream.copy(own[2], 0, own[3], 0, bytes);
			stream.synchronize();
			float[] output = new float[input.length];
			own[3].hostView().asFloatBuffer().get(0, output);
			return output.length == input.length;
		}

	}

	/**
	 * A {@code --kernel-ms} kernel always running on a stream of its own.
	 */
	private final class Background implements AutoCloseable {

		private final AtomicBoolean stop = new AtomicBoolean();

		private final Thread thread;

		Background(DeviceRegistry registry) {
			Device device = registry.device(0);
			long nanos = MemoryHazardBenchmark.this.options.kernelMillis * 1_000_000L;
			this.thread = new Thread(() -> {
				while (!this.stop.get()) {
					try (OffloadSession session = device.openSession()) {
						session.launch(device.kernel(SPIN_KERNEL), LaunchConfig.of(1, 1), nanos);
					}
				}
			}, "memory-hazard-background");
			if (nanos > 0) {
				this.thread.start();
			}
		}

		@Override
		public void close() throws InterruptedException {
			this.stop.set(true);
			this.thread.join();
		}

	}

	private record Result(String name, long calls, LatencySummary latency, double callsPerSecond, double seconds) {

		double p50Millis() {
			return this.latency.p50Nanos() / 1e6;
		}

		double p99Millis() {
			return this.latency.p99Nanos() / 1e6;
		}

		String row(Result floor) {
			return String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.0f | %.2f | %.2f | %.2f |", this.name,
					this.calls, p50Millis(), p99Millis(), this.callsPerSecond,
					(double) this.latency.p50Nanos() / floor.latency.p50Nanos(),
					(double) this.latency.p99Nanos() / floor.latency.p99Nanos(),
					this.callsPerSecond / floor.callsPerSecond);
		}

	}

	private record Options(String backend, String mode, int threads, long seconds, long soakSeconds, long minBytes,
			long maxBytes, long kernelMillis, long hostMemory, long cacheBytes) {

		static final String USAGE = """
				Usage: java -cp ... dev.offload.benchmarks.MemoryHazardBenchmark [options]
				  --backend host|cuda|ffm          the backend (host)
				  --mode hazard|soak|flood|all     what to run (all)
				  --threads N                      threads making calls (16)
				  --seconds N                      seconds of each hazard and flood run (10)
				  --soak-seconds N                 seconds of the soak, a tenth of it warm-up (600)
				  --min-bytes N                    the smallest call's input (4096)
				  --max-bytes N                    the largest call's input (33554432)
				  --kernel-ms N                    the kernel always running on another stream, 0 for none (5)
				  --host-memory N                  the host backend's device memory in bytes (4294967296)
				  --cache-bytes N                  the bound of the device's buffer cache (268435456)
				""";

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "host", "cuda", "ffm"),
					line.choice("--mode", "all", "hazard", "soak", "flood"), line.intOption("--threads", 16),
					line.longOption("--seconds", 10), line.longOption("--soak-seconds", 600),
					line.longOption("--min-bytes", 4096), line.longOption("--max-bytes", 32L << 20),
					line.longOption("--kernel-ms", 5), line.longOption("--host-memory", 4L << 30),
					line.longOption("--cache-bytes", DeviceRegistry.DEFAULT_BUFFER_CACHE_BYTES));
		}

	}

}
