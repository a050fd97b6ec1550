package dev.offload.benchmarks.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import dev.offload.Buffer;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.LibraryStatistics;
import dev.offload.OffloadSession;
import dev.offload.backend.cuda.CudaBackend;
import dev.offload.backend.cuda.CudaBackendProvider;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.MathMode;
import dev.offload.blas.Transpose;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import org.jspecify.annotations.Nullable;

/**
 * cuBLAS through Offload on a real GPU, the numbers {@code blas_floor.c} (the same work
 * from C, through {@code dlopen} of {@code libcuda.so.1} and {@code libcublas.so.13})
 * gives the floor of:
 * <ol>
 * <li>{@code 8192 x 8192} sgemm (default math and TF32): time per GEMM on
 * application-owned buffers, synchronized after each, and TFLOP/s ({@code 2 n^3} per
 * GEMM);</li>
 * <li>a {@code 64 x 64} sgemm round trip on one thread: open a session, copy A and B in
 * from page-locked host buffers, sgemm, copy C out, synchronize, close: p50 and p99;</li>
 * <li>the same round trip on 16 threads: round trips per second; then again with each
 * thread's buffers allocated once ({@link Device#allocate}, {@link Device#allocateHost})
 * and only the session per round trip, the work {@code blas_floor.c} does, so that the
 * cost of the session's buffers (the buffer cache and the budget) shows apart from the
 * session's own.</li>
 * </ol>
 * It ends with the library's statistics: handles created (one per stream that ran BLAS)
 * and workspace allocations, which the round trips add none to after warm-up. Usage:
 * {@link #USAGE}; the system property {@code offload.blas.library} names cuBLAS's path.
 * Exits 2 without a CUDA device.
 */
public final class BlasBenchmark {

	static final String USAGE = """
			Usage: java -cp ... dev.offload.benchmarks.cuda.BlasBenchmark [ITERATIONS] [THREADS]
			  ITERATIONS   64x64 round trips per thread (20000)
			  THREADS      threads of the throughput run (16)
			  --workspace-mib N   each handle's workspace (default: what cuBLAS recommends for
			                      the device, 32 MiB from Hopper on, 4 MiB before)
			  --rounds N          rounds of the throughput runs (1)
			  --big yes|no        whether to run the 8192x8192 sgemm (yes)
			  --gpu-fault-watch on|off  whether the registry watches NVML's fault reports (on)
			  --kept-session yes|no     also run the round trips with each thread's session kept
			                            open (no): what opening and closing a session costs
			  --split yes|no            also run them with only the host buffer, then only the
			                            device buffers, kept per thread (no): which of the
			                            session's buffers cost what
			""";

	private static final int BIG = 8192;

	private static final int SMALL = 64;

	/** The bytes of one {@code SMALL x SMALL} matrix of floats. */
	private static final long SMALL_BYTES = (long) SMALL * SMALL * Float.BYTES;

	private BlasBenchmark() {
	}

	/**
	 * The CUDA backend of {@code binding}: {@code jcuda}, or {@code ffm} (Java 22+, with
	 * offload-backend-ffm on the class path, made reflectively).
	 */
	private static Backend backend(String binding) throws ReflectiveOperationException {
		if (binding.equals("ffm")) {
			return (Backend) Class.forName("dev.offload.backend.ffm.FfmBackend").getMethod("create").invoke(null);
		}
		return CudaBackend.create();
	}

	public static void main(String[] args) throws Exception {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		int iterations = options.iterations();
		int threads = options.threads();
		BackendAvailability availability = new CudaBackendProvider().probe();
		if (!availability.available()) {
			System.out.println("No CUDA device: " + availability.message());
			System.exit(2);
		}
		BlasLibrary.Builder builder = BlasLibrary.builder().libraryPath(System.getProperty("offload.blas.library"));
		BlasLibrary library = ((options.workspaceMib() >= 0)
				? builder.workspaceBytes((long) options.workspaceMib() << 20) : builder.recommendedWorkspace())
			.build();
		String binding = System.getProperty("blas.binding", "jcuda");
		try (DeviceRegistry registry = DeviceRegistry.builder(backend(binding))
			.deviceIds(List.of(0))
			.watchGpuFaults(options.watchGpuFaults())
			.build()) {
			Device device = registry.device(0);
			System.out.printf(Locale.ROOT,
					"Device 0: %s, compute capability %s; %s binding; workspace %d MiB a handle; Java %s; %d CPUs%n%n",
					device.name(), device.info().computeCapability(), binding, library.workspaceBytes(device) >> 20,
					Runtime.version(), Runtime.getRuntime().availableProcessors());
			if (options.big()) {
				big(device, library, MathMode.DEFAULT);
				big(device, library, MathMode.TF32);
			}
			long[] oneThread = roundTrips(device, library, iterations);
			System.out.printf(Locale.ROOT, "64x64 sgemm round trip, 1 thread: p50 %.1f us, p99 %.1f us (%d)%n",
					LatencySummary.percentile(oneThread, 50) / 1e3, LatencySummary.percentile(oneThread, 99) / 1e3,
					iterations);
			LibraryStatistics warm = library.statistics(device);
			for (int round = 1; round <= options.rounds(); round++) {
				for (Variant variant : Variant.values()) {
					if (variant == Variant.KEPT_SESSION && !options.keptSession()
							|| (variant == Variant.KEPT_HOST || variant == Variant.KEPT_DEVICE) && !options.split()) {
						continue;
					}
					double perSecond = throughput(device, library, threads, iterations, variant);
					System.out.printf(Locale.ROOT, "64x64 sgemm round trip, %d threads%s: %.0f round trips/s%n",
							threads, variant.label, perSecond);
				}
			}
			LibraryStatistics after = library.statistics(device);
			System.out.printf(Locale.ROOT,
					"handles created %d (%d during the %d-thread run), workspace allocations %d (%d), calls %d%n",
					after.handlesCreated(), after.handlesCreated() - warm.handlesCreated(), threads,
					after.workspaceAllocations(), after.workspaceAllocations() - warm.workspaceAllocations(),
					after.calls());
		}
	}

	private static void big(Device device, BlasLibrary library, MathMode mode) {
		long bytes = (long) BIG * BIG * Float.BYTES;
		try (DeviceBuffer a = device.allocate(bytes);
				DeviceBuffer b = device.allocate(bytes);
				DeviceBuffer c = device.allocate(bytes)) {
			try (OffloadSession session = device.openSession()) {
				// Small values, so that the products stay finite.
				session.fill(a, (byte) 0x3c);
				session.fill(b, (byte) 0x3c);
				session.synchronize();
			}
			int runs = 10;
			long[] times = new long[runs];
			for (int i = -2; i < runs; i++) {
				try (OffloadSession session = device.openSession()) {
					Blas blas = library.on(session).withMathMode(mode);
					long start = System.nanoTime();
					blas.sgemm(Transpose.NONE, Transpose.NONE, BIG, BIG, BIG, 1, a, BIG, b, BIG, 0, c, BIG);
					session.synchronize();
					if (i >= 0) {
						times[i] = System.nanoTime() - start;
					}
				}
			}
			Arrays.sort(times);
			double median = times[runs / 2];
			System.out.printf(Locale.ROOT, "8192x8192 sgemm (%s): median %.2f ms, %.1f TFLOP/s (best %.2f ms)%n", mode,
					median / 1e6, 2.0 * BIG * BIG * BIG / median / 1e3, times[0] / 1e6);
		}
	}

	/** The round trips' times, sorted. */
	private static long[] roundTrips(Device device, BlasLibrary library, int iterations) {
		try (ThreadRoundTrip roundTrip = new ThreadRoundTrip(device, library, Variant.SESSION_BUFFERS)) {
			for (int i = 0; i < iterations / 4; i++) {
				roundTrip.run();
			}
			long[] times = new long[iterations];
			for (int i = 0; i < iterations; i++) {
				long start = System.nanoTime();
				roundTrip.run();
				times[i] = System.nanoTime() - start;
			}
			Arrays.sort(times);
			return times;
		}
	}

	/** Round trips per second of {@code variant} on {@code threads} threads. */
	private static double throughput(Device device, BlasLibrary library, int threads, int iterations, Variant variant)
			throws InterruptedException {
		int perThread = Math.max(1, iterations / threads) * 4;
		CountDownLatch start = new CountDownLatch(1);
		AtomicLong done = new AtomicLong();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try (ThreadRoundTrip roundTrip = new ThreadRoundTrip(device, library, variant)) {
					for (int i = 0; i < perThread / 4; i++) {
						roundTrip.run();
					}
					start.await();
					for (int i = 0; i < perThread; i++) {
						roundTrip.run();
						done.incrementAndGet();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			worker.start();
			workers.add(worker);
		}
		Thread.sleep(200);
		long begin = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		return done.get() / ((System.nanoTime() - begin) / 1e9);
	}

	/**
	 * A and B in from {@code host}, C = A B, C out to {@code host}, synchronize: the work
	 * of every round trip, whoever owns the buffers.
	 */
	private static void roundTrip(OffloadSession session, BlasLibrary library, HostBuffer host, DeviceBuffer a,
			DeviceBuffer b, DeviceBuffer c) {
		session.copy(host, 0, a, 0, SMALL_BYTES);
		session.copy(host, SMALL_BYTES, b, 0, SMALL_BYTES);
		library.on(session)
			.sgemm(Transpose.NONE, Transpose.NONE, SMALL, SMALL, SMALL, 1, a, SMALL, b, SMALL, 0, c, SMALL);
		session.copy(c, 0, host, 2 * SMALL_BYTES, SMALL_BYTES);
		session.synchronize();
	}

	/** What a thread keeps from one round trip to the next. */
	private enum Variant {

		/** Nothing: a session and its buffers per round trip. */
		SESSION_BUFFERS("", false, false, false),

		/** Its buffers, allocated once: a session per round trip. */
		KEPT_BUFFERS(", buffers kept per thread", true, true, false),

		/** Its buffers and one session. */
		KEPT_SESSION(", buffers and session kept per thread", true, true, true),

		/** Its page-locked buffer: the device blocks are the session's. */
		KEPT_HOST(", host buffer kept per thread", true, false, false),

		/** Its device blocks: the page-locked staging is the session's. */
		KEPT_DEVICE(", device buffers kept per thread", false, true, false);

		private final String label;

		private final boolean host;

		private final boolean device;

		private final boolean session;

		Variant(String label, boolean host, boolean device, boolean session) {
			this.label = label;
			this.host = host;
			this.device = device;
			this.session = session;
		}

	}

	/**
	 * One thread's round trips: what {@link Variant} says the thread keeps is allocated
	 * once (as {@code blas_floor.c} keeps a stream's buffers), the rest is the session's,
	 * a session per round trip unless the session is kept too.
	 */
	private static final class ThreadRoundTrip implements Runnable, AutoCloseable {

		private final Device device;

		private final BlasLibrary library;

		private final @Nullable HostBuffer host;

		private final @Nullable DeviceBuffer a;

		private final @Nullable DeviceBuffer b;

		private final @Nullable DeviceBuffer c;

		private final @Nullable OffloadSession session;

		ThreadRoundTrip(Device device, BlasLibrary library, Variant variant) {
			this.device = device;
			this.library = library;
			this.host = variant.host ? device.allocateHost(3 * SMALL_BYTES) : null;
			this.a = variant.device ? device.allocate(SMALL_BYTES) : null;
			this.b = variant.device ? device.allocate(SMALL_BYTES) : null;
			this.c = variant.device ? device.allocate(SMALL_BYTES) : null;
			this.session = variant.session ? device.openSession() : null;
		}

		@Override
		public void run() {
			if (this.session != null) {
				run(this.session);
				return;
			}
			try (OffloadSession session = this.device.openSession()) {
				run(session);
			}
		}

		private void run(OffloadSession session) {
			HostBuffer host = (this.host != null) ? this.host : session.allocateHost(3 * SMALL_BYTES);
			DeviceBuffer a = (this.a != null) ? this.a : session.allocate(SMALL_BYTES);
			DeviceBuffer b = (this.b != null) ? this.b : session.allocate(SMALL_BYTES);
			DeviceBuffer c = (this.c != null) ? this.c : session.allocate(SMALL_BYTES);
			roundTrip(session, this.library, host, a, b, c);
		}

		@Override
		public void close() {
			if (this.session != null) {
				this.session.close();
			}
			for (Buffer buffer : new @Nullable Buffer[] { this.a, this.b, this.c, this.host }) {
				if (buffer != null) {
					buffer.close();
				}
			}
		}

	}

	private record Options(int iterations, int threads, int workspaceMib, int rounds, boolean big,
			boolean watchGpuFaults, boolean keptSession, boolean split) {

		static Options from(CommandLine line) {
			return new Options(line.intArgument(0, "ITERATIONS", 20_000), line.intArgument(1, "THREADS", 16),
					line.intOption("--workspace-mib", -1, 0, 1024), line.intOption("--rounds", 1, 1, 100),
					line.choice("--big", "yes", "no").equals("yes"),
					line.choice("--gpu-fault-watch", "on", "off").equals("on"),
					line.choice("--kept-session", "no", "yes").equals("yes"),
					line.choice("--split", "no", "yes").equals("yes"));
		}

	}

}
