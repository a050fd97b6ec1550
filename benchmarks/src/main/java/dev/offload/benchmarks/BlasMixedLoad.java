package dev.offload.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.LibraryStatistics;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.blas.Blas;
import dev.offload.blas.BlasLibrary;
import dev.offload.blas.Transpose;

/**
 * A steady mixed BLAS load, to show that after warm-up no request creates a cuBLAS handle
 * or allocates workspace: {@code threads} threads (16) each open a session per request
 * and run one call drawn at random, {@code sgemm}/{@code dgemm} (either transpose),
 * {@code sgemv}/{@code dgemv}, {@code saxpy}/{@code daxpy} or {@code sdot}/{@code ddot},
 * of a size drawn from 16 up to {@code --max-size}, on buffers from the session, then
 * synchronize and close. After {@code --warmup-seconds} it takes the library's statistics
 * ({@link BlasLibrary#statistics}); after {@code --seconds} more it prints the handles
 * created and workspace allocations in between (the target is 0 and 0), the calls and
 * failures, and exits 1 if the target was missed or a call failed.
 * <p>
 * Usage in {@link #USAGE}; {@code offload.blas.library} (a system property) names
 * cuBLAS's path. On the host backend the same run exercises the statistics with EJML (use
 * a small {@code --max-size} there).
 */
public final class BlasMixedLoad {

	static final String USAGE = """
			Usage: java -cp ... dev.offload.benchmarks.BlasMixedLoad [options]
			  --backend host|cuda|ffm   the backend (host)
			  --seconds N               seconds measured, after the warm-up (300)
			  --warmup-seconds N        seconds of warm-up (20)
			  --threads N               threads making requests (16)
			  --max-size N              the largest matrix side, from 16 (1024)
			  --gpu-fault-watch on|off  whether the registry watches NVML's fault reports (on); off
			                            where other processes may fault on the same GPU meanwhile
			""";

	private static final int OPERATIONS = 8;

	private BlasMixedLoad() {
	}

	public static void main(String[] args) throws InterruptedException {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		BlasLibrary library = BlasLibrary.builder().libraryPath(System.getProperty("offload.blas.library")).build();
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create(options.backend(), 0))
			.watchGpuFaults(options.watchGpuFaults())
			.build()) {
			Device device = registry.device(0);
			System.out.printf(Locale.ROOT,
					"BLAS mixed load on %s (%s backend, Java %s): %d threads, sizes 16..%d, "
							+ "%d s warm-up, %d s measured%n",
					device.name(), options.backend(), Runtime.version(), options.threads(), options.maxSize(),
					options.warmup().toSeconds(), options.measured().toSeconds());
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong requests = new AtomicLong();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < options.threads(); t++) {
				long seed = 0x5eed + t;
				Thread worker = new Thread(
						() -> work(device, library, options.maxSize(), seed, running, requests, failure),
						"blas-load-" + t);
				worker.start();
				workers.add(worker);
			}
			Thread.sleep(options.warmup().toMillis());
			LibraryStatistics warm = library.statistics(device);
			long warmRequests = requests.get();
			Thread.sleep(options.measured().toMillis());
			LibraryStatistics after = library.statistics(device);
			long measuredRequests = requests.get() - warmRequests;
			running.set(false);
			for (Thread worker : workers) {
				worker.join();
			}
			long handles = after.handlesCreated() - warm.handlesCreated();
			long workspace = after.workspaceAllocations() - warm.workspaceAllocations();
			long failed = after.failedCalls();
			System.out.printf(Locale.ROOT, "requests after warm-up: %d (%.0f/s); calls in all: %d, failed: %d%n",
					measuredRequests, measuredRequests / (double) options.measured().toSeconds(), after.calls(),
					failed);
			System.out.printf(Locale.ROOT,
					"after warm-up: handles created %d, workspace allocations %d (target 0 and 0: %s); "
							+ "in all: handles %d (open %d), workspace allocations %d, workspace %d bytes%n",
					handles, workspace, (handles == 0 && workspace == 0) ? "met" : "NOT MET", after.handlesCreated(),
					after.openHandles(), after.workspaceAllocations(), after.workspaceBytes());
			Throwable error = failure.get();
			if (error != null) {
				System.out.println("a request failed: " + error);
			}
			if (handles != 0 || workspace != 0 || failed != 0 || error != null) {
				System.exit(1);
			}
		}
	}

	private static void work(Device device, BlasLibrary library, int maxSize, long seed, AtomicBoolean running,
			AtomicLong requests, AtomicReference<Throwable> failure) {
		SplittableRandom random = new SplittableRandom(seed);
		while (running.get()) {
			try (OffloadSession session = device.openSession()) {
				call(library.on(session), session, random.nextInt(OPERATIONS), size(random, maxSize),
						size(random, maxSize), random.nextBoolean() ? Transpose.NONE : Transpose.TRANSPOSE);
				session.synchronize();
				requests.incrementAndGet();
			}
			catch (RuntimeException ex) {
				failure.compareAndSet(null, ex);
			}
		}
	}

	/** 16, 32, ... up to {@code maxSize}: powers of two and odd sizes between. */
	private static int size(SplittableRandom random, int maxSize) {
		int steps = 31 - Integer.numberOfLeadingZeros(Math.max(16, maxSize) >> 4);
		int size = 16 << random.nextInt(steps + 1);
		return Math.min(maxSize, size + (random.nextBoolean() ? random.nextInt(size / 2) | 1 : 0));
	}

	private static void call(Blas blas, OffloadSession session, int operation, int m, int n, Transpose trans) {
		boolean doubles = (operation & 1) == 1;
		int element = doubles ? Double.BYTES : Float.BYTES;
		switch (operation >> 1) {
			case 0 -> {
				DeviceBuffer a = zeroed(session, (long) m * n * element);
				DeviceBuffer b = zeroed(session, (long) n * n * element);
				DeviceBuffer c = zeroed(session, (long) m * n * element);
				int lda = (trans == Transpose.NONE) ? m : n;
				if (doubles) {
					blas.dgemm(trans, Transpose.NONE, m, n, n, 1.0, a, lda, b, n, 0.5, c, m);
				}
				else {
					blas.sgemm(trans, Transpose.NONE, m, n, n, 1f, a, lda, b, n, 0.5f, c, m);
				}
			}
			case 1 -> {
				DeviceBuffer a = zeroed(session, (long) m * n * element);
				DeviceBuffer x = zeroed(session, (long) Math.max(m, n) * element);
				DeviceBuffer y = zeroed(session, (long) Math.max(m, n) * element);
				if (doubles) {
					blas.dgemv(trans, m, n, 2.0, a, m, x, 1, 0.0, y, 1);
				}
				else {
					blas.sgemv(trans, m, n, 2f, a, m, x, 1, 0f, y, 1);
				}
			}
			case 2 -> {
				long elements = (long) m * n;
				DeviceBuffer x = zeroed(session, elements * element);
				DeviceBuffer y = zeroed(session, elements * element);
				if (doubles) {
					blas.daxpy((int) elements, 0.25, x, 1, y, 1);
				}
				else {
					blas.saxpy((int) elements, 0.25f, x, 1, y, 1);
				}
			}
			default -> {
				long elements = (long) m * n;
				DeviceBuffer x = zeroed(session, elements * element);
				DeviceBuffer y = zeroed(session, elements * element);
				DeviceBuffer result = zeroed(session, element);
				if (doubles) {
					blas.ddot((int) elements, x, 1, y, 1, result);
				}
				else {
					blas.sdot((int) elements, x, 1, y, 1, result);
				}
			}
		}
	}

	private static DeviceBuffer zeroed(OffloadSession session, long bytes) {
		DeviceBuffer buffer = session.allocate(bytes);
		session.fill(buffer, (byte) 0);
		return buffer;
	}

	private record Options(String backend, Duration measured, Duration warmup, int threads, int maxSize,
			boolean watchGpuFaults) {

		static Options from(CommandLine line) {
			return new Options(line.choice("--backend", "host", "cuda", "ffm"), line.durationSeconds("--seconds", 300),
					line.durationSeconds("--warmup-seconds", 20), line.intOption("--threads", 16),
					line.intOption("--max-size", 1024), "on".equals(line.choice("--gpu-fault-watch", "on", "off")));
		}

	}

}
