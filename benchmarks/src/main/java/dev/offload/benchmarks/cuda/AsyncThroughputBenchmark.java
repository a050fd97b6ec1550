package dev.offload.benchmarks.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolStatistics;
import dev.offload.backend.cuda.CudaBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;

/**
 * Many sessions in flight at once, each closed with {@code closeAsync()}: one thread
 * opens {@code N} sessions (an empty-kernel launch each) and closes them asynchronously,
 * then waits for every future. Reports the throughput, how many {@code offload-} threads
 * existed, and the pool afterwards.
 * <p>
 * Usage:
 * {@code java -cp ... dev.offload.benchmarks.cuda.AsyncThroughputBenchmark [sessions] [rounds]}.
 */
public final class AsyncThroughputBenchmark {

	private static final String EMPTY_PTX = "dev/offload/benchmarks/cuda/empty.ptx";

	private AsyncThroughputBenchmark() {
	}

	public static void main(String[] args) {
		int sessions = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaBackend.create()).deviceIds(List.of(0)).build()) {
			Device device = registry.device(0);
			Kernel empty = device.loadModule(ModuleDefinition.builder("empty").image(read()).build()).kernel("empty");
			LaunchConfig one = LaunchConfig.of(1, 1);
			for (int round = 0; round <= rounds; round++) {
				List<CompletableFuture<Void>> futures = new ArrayList<>(sessions);
				long start = System.nanoTime();
				for (int i = 0; i < sessions; i++) {
					OffloadSession session = device.openSession();
					session.launch(empty, one);
					futures.add(session.closeAsync());
				}
				CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
				double seconds = (System.nanoTime() - start) / 1e9;
				long threads = Thread.getAllStackTraces()
					.keySet()
					.stream()
					.filter((thread) -> thread.getName().startsWith("offload-"))
					.count();
				StreamPoolStatistics stats = device.streamPool().statistics();
				System.out.println(String.format(Locale.ROOT,
						"%s %d: %d sessions in %.1f ms = %.0f sessions/s; offload- threads: %d; pool size %d, "
								+ "peak in use %d, in use after %d",
						(round == 0) ? "warm-up" : "round", round, sessions, seconds * 1e3, sessions / seconds, threads,
						stats.size(), stats.peakInUse(), stats.inUse()));
			}
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

}
