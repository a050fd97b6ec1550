package dev.offload.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.benchmarks.cuda.HandWrittenScale;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.benchmarks.support.ScaleKernel;
import dev.offload.benchmarks.support.Scaler;
import dev.offload.template.OffloadTemplate;

/**
 * The fluent kernel call against hand-written code doing the same work: float[] in,
 * {@code out[i] = a * in[i]}, float[] out, at sizes 1, 1k, 64k and 1M, on 1 and 16
 * threads. The fluent call is {@code template.kernel(SCALE).threads(n).arg(n).arg(a)
 * .in(x).outFloats(n).run().floats(0)}. The hand-written code allocates its page-locked
 * and device buffers once per thread and borrows streams from a lock+deque pool: on CUDA
 * raw JCuda ({@code cuMemcpyHtoDAsync}, {@code cuLaunchKernel},
 * {@code cuMemcpyDtoHAsync}, {@code cuStreamSynchronize}); on the host backend the
 * session API with buffers allocated once (what is left is the fluent layer's own cost).
 * Both return a new float[] per call. Each round runs on new threads, both modes on the
 * same threads in turns: slices of calls, all threads in one mode at a time, the modes
 * taking turns A B B A A B B A (which mode is A alternates by round), so that a change in
 * the machine's state during a round (one thread's latency moves by a quarter from one
 * second to the next on the H200's host) weighs on both alike. Each thread makes
 * {@value #THREAD_WARM_CALLS} calls per mode before the timed ones, as a server's worker
 * threads are long past their first call: a hand-written scaler's per-thread setup (its
 * buffers) is outside the timing, and so is the fluent call's (its first call on a thread
 * sets up that thread's share of the memory budget and of the buffer cache); the first
 * call's median is printed apart. Prints calls/s (calls over the sum of the mode's
 * slices' walls) and the per-call p50/p99 per mode, and the medians of the rounds'
 * fluent/hand-written ratios, the first round left out.
 * <p>
 * Usage in {@link #USAGE}.
 */
public final class FluentCallBenchmark {

	static final String USAGE = """
			Usage: java -cp benchmarks.jar dev.offload.benchmarks.FluentCallBenchmark [options]
			  --backend host|cuda|ffm   the backend (host)
			  --sizes N,...             the array sizes (1,1024,65536,1048576)
			  --threads N,...           the thread counts (1,16)
			  --rounds N                rounds per size and thread count (4)
			  --calls N                 calls per thread and round at n = 1; fewer for larger sizes, but at
			                            least 500 a round over all threads (20000)
			""";

	/** The fewest calls a round makes, over all its threads. */
	private static final int MIN_CALLS_PER_ROUND = 500;

	/** The most slices of calls per mode and round. */
	private static final int SLICES = 8;

	/** The fewest calls per thread in a slice. */
	private static final int MIN_SLICE_CALLS = 25;

	/** The calls each thread makes before its timed ones. */
	static final int THREAD_WARM_CALLS = 3;

	private FluentCallBenchmark() {
	}

	public static void main(String[] args) throws InterruptedException {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		String backendName = options.backend();
		int[] sizes = options.sizes();
		int[] threadCounts = options.threadCounts();
		int rounds = options.rounds();
		int calls = options.calls();
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(backendName, 0)).build()) {
			Device device = registry.device(0);
			OffloadTemplate template = new OffloadTemplate(registry);
			System.out.printf(Locale.ROOT,
					"Fluent call against hand-written code, %s backend, %s; Java %s; %d CPUs%n%n", backendName,
					device.name(), Runtime.version(), Runtime.getRuntime().availableProcessors());
			printAllocations(backendName, device, template, sizes);
			System.out.println("| n | threads | mode | round | calls/s | p50 µs | p99 µs | a thread's first call µs |");
			System.out.println("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
			List<String> summary = new ArrayList<>();
			List<String> memory = new ArrayList<>();
			for (int n : sizes) {
				for (int threads : threadCounts) {
					// At least 500 calls a round in all, so that the p99 is not one
					// call's.
					int perThread = (int) Math.max((MIN_CALLS_PER_ROUND + threads - 1) / threads,
							Math.min(calls, (long) calls * 64 / Math.max(64, n) / threads));
					Supplier<Scaler> handWritten = handWritten(backendName, device, n);
					Supplier<Scaler> fluent = () -> fluent(template);
					double[] rateRatios = new double[rounds];
					double[] p99Ratios = new double[rounds];
					MemoryStatistics before = device.memoryStatistics();
					for (int round = 1; round <= rounds; round++) {
						// Both modes on the same threads, which of them first
						// alternating.
						boolean handFirst = round % 2 == 1;
						Result[] results = measure(
								handFirst ? List.of(handWritten, fluent) : List.of(fluent, handWritten), n, threads,
								perThread);
						Result hand = results[handFirst ? 0 : 1];
						Result flu = results[handFirst ? 1 : 0];
						rateRatios[round - 1] = flu.rate / hand.rate;
						p99Ratios[round - 1] = flu.p99 / hand.p99;
						print(n, threads, "hand-written", round, hand);
						print(n, threads, "fluent run()", round, flu);
					}
					MemoryStatistics after = device.memoryStatistics();
					memory.add(String.format(Locale.ROOT, "| %d | %d | %d | %d | %d | %d | %d |", n, threads,
							after.cacheHits() - before.cacheHits(), after.cacheMisses() - before.cacheMisses(),
							after.deviceAllocations() - before.deviceAllocations(),
							after.hostAllocations() - before.hostAllocations(),
							after.synchronizingCalls() - before.synchronizingCalls()));
					int from = (rounds > 1) ? 1 : 0;
					summary.add(String.format(Locale.ROOT, "| %d | %d | %.2f | %.2f |", n, threads,
							LatencySummary.median(Arrays.copyOfRange(rateRatios, from, rounds)),
							LatencySummary.median(Arrays.copyOfRange(p99Ratios, from, rounds))));
				}
			}
			System.out.println();
			System.out.println(
					"| n | threads | fluent / hand-written throughput (target >= 0.95) | p99 ratio (target <= 1.3) |");
			System.out.println("| ---: | ---: | ---: | ---: |");
			summary.forEach(System.out::println);
			System.out.println();
			System.out.println("The device's memory over each size's rounds (both modes; the hand-written scalers' "
					+ "own memory is not counted):");
			System.out.println();
			System.out.println("| n | threads | cache hits | cache misses | device allocations | host allocations "
					+ "| synchronizing calls |");
			System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
			memory.forEach(System.out::println);
		}
	}

	/**
	 * Prints the bytes the calling thread allocates per call, fluent and hand-written:
	 * deterministic where timings are noisy.
	 */
	private static void printAllocations(String backendName, Device device, OffloadTemplate template, int[] sizes) {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
			.getThreadMXBean();
		System.out.println("| n | hand-written bytes/call | fluent bytes/call | array bytes (in + out) "
				+ "| hand-written caller CPU µs/call | fluent caller CPU µs/call |");
		System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: |");
		for (int n : sizes) {
			float[] x = new float[n];
			long[] perCall = new long[2];
			double[] cpuMicros = new double[2];
			try (Scaler hand = handWritten(backendName, device, n).get()) {
				Scaler fluent = fluent(template);
				Scaler[] scalers = { hand, fluent };
				for (int mode = 0; mode < 2; mode++) {
					int calls = (n > 65536) ? 200 : 20000;
					for (int i = 0; i < calls; i++) {
						scalers[mode].scale(x, 2f);
					}
					long before = threads.getCurrentThreadAllocatedBytes();
					long cpuBefore = threads.getCurrentThreadCpuTime();
					for (int i = 0; i < calls; i++) {
						scalers[mode].scale(x, 2f);
					}
					cpuMicros[mode] = (threads.getCurrentThreadCpuTime() - cpuBefore) / 1e3 / calls;
					perCall[mode] = (threads.getCurrentThreadAllocatedBytes() - before) / calls;
				}
			}
			System.out.printf(Locale.ROOT, "| %d | %d | %d | %d | %.1f | %.1f |%n", n, perCall[0], perCall[1],
					16 + (long) n * Float.BYTES, cpuMicros[0], cpuMicros[1]);
		}
		System.out.println();
	}

	static Scaler fluent(OffloadTemplate template) {
		return (x, a) -> template.kernel(ScaleKernel.KERNEL)
			.threads(x.length)
			.arg(x.length)
			.arg(a)
			.in(x)
			.outFloats(x.length)
			.run()
			.floats(0);
	}

	private static Supplier<Scaler> handWritten(String backend, Device device, int n) {
		if (backend.equals("cuda") || backend.equals("ffm")) {
			return HandWrittenScale.factory(device, n);
		}
		return () -> sessionScaler(device, n);
	}

	/**
	 * Returns a scaler on the session API, with its buffers allocated once.
	 * @param device the device
	 * @param n the largest array
	 * @return the scaler
	 */
	static Scaler sessionScaler(Device device, int n) {
		return SessionScalers.buffersOnce(device, device.kernel(ScaleKernel.KERNEL), n);
	}

	/**
	 * Measures the modes on the same threads (new for the round), in slices of calls that
	 * take turns A B B A ({@code factories} gives A first): all threads run a slice of
	 * one mode between two barriers, and a mode's wall is the sum of its slices'.
	 */
	private static Result[] measure(List<Supplier<Scaler>> factories, int n, int threads, int perThread)
			throws InterruptedException {
		float[] input = new float[n];
		for (int i = 0; i < n; i++) {
			input[i] = i;
		}
		int modes = factories.size();
		int slices = Math.max(1, Math.min(SLICES, perThread / MIN_SLICE_CALLS));
		long[][][] times = new long[modes][threads][perThread];
		long[][] firsts = new long[modes][threads];
		long[] walls = new long[modes];
		// Trips once every thread made its scalers and warm-up calls, then after each
		// slice: the time between two trips is a slice's wall.
		long[] lastTrip = new long[1];
		int[] trips = new int[1];
		CyclicBarrier barrier = new CyclicBarrier(threads, () -> {
			long now = System.nanoTime();
			if (trips[0] > 0) {
				walls[sliceMode(trips[0] - 1)] += now - lastTrip[0];
			}
			trips[0]++;
			lastTrip[0] = now;
		});
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread worker = new Thread(() -> {
				try {
					runThread(factories, input, times, firsts, index, slices, () -> await(barrier, failure));
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
					barrier.reset();
				}
			}, "scale-" + t);
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join();
		}
		if (failure.get() != null) {
			throw new IllegalStateException("A call failed: " + failure.get(), failure.get());
		}
		Result[] results = new Result[modes];
		for (int mode = 0; mode < modes; mode++) {
			long[] all = Arrays.stream(times[mode]).flatMapToLong(Arrays::stream).sorted().toArray();
			long[] first = firsts[mode].clone();
			Arrays.sort(first);
			results[mode] = new Result(all.length / (walls[mode] / 1e9), LatencySummary.percentile(all, 50),
					LatencySummary.percentile(all, 99), LatencySummary.percentile(first, 50));
		}
		return results;
	}

	/**
	 * Waits at the barrier, unless a thread failed: the failing thread records its
	 * failure before it breaks the barrier, and a thread late to a broken barrier gives
	 * up after a while instead of waiting for ever.
	 */
	private static int await(CyclicBarrier barrier, AtomicReference<Throwable> failure) throws Exception {
		if (failure.get() != null) {
			throw new IllegalStateException("Another thread failed");
		}
		return barrier.await(5, TimeUnit.MINUTES);
	}

	/** The mode of slice {@code slice}: A B B A A B B A ... */
	private static int sliceMode(int slice) {
		int inFour = slice % 4;
		return (inFour == 0 || inFour == 3) ? 0 : 1;
	}

	/**
	 * One thread's part of a round: makes its scaler of each mode and their warm-up
	 * calls, then runs its share of each slice between the barriers, and closes its
	 * scalers once every thread is done (a hand-written scaler frees page-locked memory,
	 * which synchronizes the device).
	 */
	private static void runThread(List<Supplier<Scaler>> factories, float[] input, long[][][] times, long[][] firsts,
			int index, int slices, Callable<Integer> barrier) throws Exception {
		int n = input.length;
		int modes = factories.size();
		Scaler[] scalers = new Scaler[modes];
		try {
			for (int mode = 0; mode < modes; mode++) {
				scalers[mode] = factories.get(mode).get();
				for (int i = 0; i < THREAD_WARM_CALLS; i++) {
					long begin = System.nanoTime();
					scalers[mode].scale(input, 2f);
					if (i == 0) {
						firsts[mode][index] = System.nanoTime() - begin;
					}
				}
			}
			int perThread = times[0][index].length;
			int[] done = new int[modes];
			int[] slicesRun = new int[modes];
			barrier.call();
			for (int slice = 0; slice < slices * modes; slice++) {
				int mode = sliceMode(slice);
				long[] mine = times[mode][index];
				// The calls left, spread over the mode's slices left.
				int slicesLeft = slices - slicesRun[mode]++;
				int calls = (perThread - done[mode] + slicesLeft - 1) / slicesLeft;
				for (int i = 0; i < calls && done[mode] < perThread; i++) {
					long begin = System.nanoTime();
					float[] out = scalers[mode].scale(input, 2f);
					mine[done[mode]++] = System.nanoTime() - begin;
					if (out.length != n || (n > 1 && out[n - 1] != 2f * (n - 1))) {
						throw new IllegalStateException("Wrong result at n = " + n);
					}
				}
				barrier.call();
			}
		}
		finally {
			for (Scaler scaler : scalers) {
				if (scaler != null) {
					scaler.close();
				}
			}
		}
	}

	private static void print(int n, int threads, String mode, int round, Result result) {
		System.out.printf(Locale.ROOT, "| %d | %d | %s | %d | %.0f | %.1f | %.1f | %.1f |%n", n, threads, mode, round,
				result.rate, result.p50 / 1e3, result.p99 / 1e3, result.firstCall / 1e3);
	}

	private record Result(double rate, double p50, double p99, double firstCall) {

	}

	private record Options(String backend, int[] sizes, int[] threadCounts, int rounds, int calls) {

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "host", "cuda", "ffm"),
					line.intList("--sizes", 1, 1, 1024, 65536, 1048576), line.intList("--threads", 1, 1, 16),
					line.intOption("--rounds", 4), line.intOption("--calls", 20000));
		}

	}

}
