package dev.offload.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.offload.backend.host.HostBackend;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.kernel.HostThread;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * How long a one-thread kernel on a HIGH-priority stream of the host backend takes,
 * launch to synchronize, while big kernels run on NORMAL streams of the same device,
 * against the same kernel on the idle device; and how long the big kernels take.
 */
public final class HostPriorityBenchmark {

	static final String USAGE = """
			Usage: HostPriorityBenchmark [--threads N] [--normal-kernels K] [--rounds R] [--workers W] [--pause-micros P]
			  --threads         threads of each NORMAL kernel (blocks of 256), default 67108864 (64M)
			  --normal-kernels  NORMAL streams, each running one such kernel at once, default 1
			  --rounds          rounds, default 3
			  --workers         workers of the host device, default the host backend's (one per CPU, at least 2)
			  --pause-micros    pause between two HIGH kernels, default 20000
			""";

	private static final int BLOCK = 256;

	/** NORMAL kernels whose first thread has run. */
	private static final AtomicInteger started = new AtomicInteger();

	private static final ModuleDefinition MODULE = ModuleDefinition.builder("offload-benchmarks-priority")
		.hostKernel("busy", List.of(ParamKind.POINTER), HostPriorityBenchmark::busy)
		.hostKernel("mark", List.of(ParamKind.POINTER), (t) -> t.ints(0).put(1, t.ints(0).get(1) + 1))
		.build();

	private final Options options;

	private final PrintStream out;

	HostPriorityBenchmark(Options options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	/**
	 * Runs the benchmark and prints a Markdown table, a row per round.
	 * @param args the options; {@code --help} prints them
	 */
	public static void main(String[] args) {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		new HostPriorityBenchmark(options, System.out).run();
	}

	/**
	 * Runs every round on one host device.
	 * @return the rounds' results
	 */
	List<Round> run() {
		HostBackend.Builder builder = HostBackend.builder();
		if (this.options.workers() > 0) {
			builder.workersPerDevice(this.options.workers());
		}
		List<Round> rounds = new ArrayList<>();
		try (HostBackend backend = builder.build()) {
			BackendDevice device = backend.devices().get(0);
			this.out.printf(Locale.ROOT, "%d CPUs, %d workers, Java %s; %d NORMAL kernel(s) of %d threads%n%n",
					Runtime.getRuntime().availableProcessors(), device.info().multiprocessorCount(),
					System.getProperty("java.version"), this.options.normalKernels(), this.options.threads());
			this.out.println("| round | HIGH idle p50 µs | HIGH under load p50 µs | p99 µs | max µs | HIGH kernels "
					+ "| NORMAL kernel ms |");
			this.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
			for (int round = 1; round <= this.options.rounds(); round++) {
				Round result = round(device);
				rounds.add(result);
				this.out.printf(Locale.ROOT, "| %d | %.1f | %.1f | %.1f | %.1f | %d | %.0f |%n", round,
						result.idle().p50Nanos() / 1e3, result.loaded().p50Nanos() / 1e3,
						result.loaded().p99Nanos() / 1e3, result.loaded().maxNanos() / 1e3, result.loaded().count(),
						result.normalNanos() / 1e6);
			}
		}
		return rounds;
	}

	private Round round(BackendDevice device) {
		BackendKernel busy = device.loadModule(MODULE).kernels().get("busy");
		BackendKernel mark = device.loadModule(MODULE).kernels().get("mark");
		NativeMemory sink = device.allocateDevice(64);
		BackendStream high = device.createStream(device.info().greatestPriority());
		long[] idle = new long[200];
		for (int i = 0; i < idle.length; i++) {
			idle[i] = highKernel(high, mark, sink);
		}
		List<CompletableFuture<Long>> normalEnds = new ArrayList<>();
		started.set(0);
		long start = System.nanoTime();
		for (int k = 0; k < this.options.normalKernels(); k++) {
			BackendStream normal = device.createStream(device.info().leastPriority());
			normal.launch(busy, (int) (this.options.threads() / BLOCK), 1, 1, BLOCK, 1, 1, 0, new Object[] { sink });
			normalEnds.add(CompletableFuture.supplyAsync(() -> {
				normal.synchronize();
				return System.nanoTime();
			}));
		}
		CompletableFuture<Void> allEnded = CompletableFuture.allOf(normalEnds.toArray(CompletableFuture[]::new));
		// HIGH kernels are launched once every NORMAL kernel has started, until the last
		// ends (at least one).
		while (started.get() < this.options.normalKernels()) {
			Thread.onSpinWait();
		}
		List<Long> loaded = new ArrayList<>();
		do {
			loaded.add(highKernel(high, mark, sink));
			LockSupport.parkNanos(this.options.pauseMicros() * 1000);
		}
		while (!allEnded.isDone());
		long end = normalEnds.stream().mapToLong(CompletableFuture::join).max().orElse(start);
		return new Round(LatencySummary.of(idle),
				LatencySummary.of(loaded.stream().mapToLong(Long::longValue).toArray()), end - start);
	}

	private static long highKernel(BackendStream high, BackendKernel mark, NativeMemory sink) {
		long start = System.nanoTime();
		high.launch(mark, 1, 1, 1, 1, 1, 1, 0, new Object[] { sink });
		high.synchronize();
		return System.nanoTime() - start;
	}

	/**
	 * A few multiply-add rounds of a hash per thread, kept by a store that almost never
	 * happens.
	 */
	private static void busy(HostThread thread) {
		int x = thread.globalIdX();
		if (x == 0) {
			started.incrementAndGet();
		}
		for (int i = 0; i < 8; i++) {
			x = x * 0x9E3779B9 + (x >>> 16);
		}
		if (x == 42) {
			thread.ints(0).put(0, x);
		}
	}

	/**
	 * One round: the HIGH kernel's latency on the idle device and, launched after every
	 * NORMAL kernel has started, under them; and the time from the NORMAL kernels' launch
	 * to the end of the last.
	 *
	 * @param idle the HIGH kernel on the idle device
	 * @param loaded the HIGH kernel while the NORMAL kernels run
	 * @param normalNanos the NORMAL kernels' time
	 */
	record Round(LatencySummary idle, LatencySummary loaded, long normalNanos) {

	}

	/**
	 * The benchmark's options.
	 *
	 * @param threads threads of each NORMAL kernel
	 * @param normalKernels NORMAL kernels run at once
	 * @param rounds rounds
	 * @param workers workers of the device, 0 for the default
	 * @param pauseMicros pause between two HIGH kernels
	 */
	record Options(long threads, int normalKernels, int rounds, int workers, long pauseMicros) {

		static Options from(CommandLine line) {
			long threads = line.longOption("--threads", 64L << 20, 1);
			if (threads < BLOCK || threads % BLOCK != 0 || threads / BLOCK > Integer.MAX_VALUE) {
				throw new IllegalArgumentException("--threads must be a multiple of " + BLOCK + " from " + BLOCK
						+ " to 2^31-1 blocks, was " + threads);
			}
			return new Options(threads, line.intOption("--normal-kernels", 1, 1), line.intOption("--rounds", 3, 1),
					line.intOption("--workers", 0, 0), line.longOption("--pause-micros", 20_000, 0));
		}

	}

}
