package dev.offload.benchmarks.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.offload.StreamPriority;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.LatencySummary;
import dev.offload.internal.lending.LendingPool;

/**
 * Thousands of borrowers waiting on a full bounded pool: {@code threads} platform threads
 * each borrow a stream {@code borrows} times from a pool bounded at {@code streams}, hold
 * it for {@code hold} microseconds (spinning, as a launch does) and release it. Every
 * release finds waiters, so the cost of waking them decides the throughput: a pool that
 * wakes every waiter per release makes each release cost a pass over all of them. Prints
 * borrows per second and the borrowers' waits (p50, p99, max). The pool is the stream
 * pool's lending algorithm over {@link FreeItems}, which isolates it.
 * <p>
 * Usage in {@link #USAGE}.
 */
public final class PoolWaitersBenchmark {

	static final String USAGE = """
			Usage: java -cp benchmarks.jar dev.offload.benchmarks.jmh.PoolWaitersBenchmark
			       [THREADS [STREAMS [BORROWS [HOLD_µs [ROUNDS]]]]]
			  THREADS     borrowing threads (2000)
			  STREAMS     the pool's bound (16)
			  BORROWS     borrows per thread (50)
			  HOLD_µs     how long a borrow holds its stream, spinning (20)
			  ROUNDS      rounds (3)
			""";

	private static final int NORMAL = StreamPriority.NORMAL.ordinal();

	private PoolWaitersBenchmark() {
	}

	public static void main(String[] args) throws InterruptedException {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		int threads = options.threads();
		int streams = options.streams();
		int borrows = options.borrows();
		long holdNanos = options.holdMicros() * 1000;
		int rounds = options.rounds();
		System.out.printf(Locale.ROOT, "%d threads, pool of %d streams, %d borrows each, held %d µs; %d CPUs%n",
				threads, streams, borrows, holdNanos / 1000, Runtime.getRuntime().availableProcessors());
		LendingPool<FreeItems.Item> pool = FreeItems.pool(streams, streams, TimeUnit.MINUTES.toNanos(10));
		try {
			for (int round = 0; round <= rounds; round++) {
				run(pool, threads, borrows, holdNanos, (round == 0) ? "warm-up" : "round " + round);
			}
		}
		finally {
			pool.shutdown(0);
		}
	}

	private static void run(LendingPool<FreeItems.Item> pool, int threads, int borrows, long holdNanos, String label)
			throws InterruptedException {
		long[][] waits = new long[threads][borrows];
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>(threads);
		for (int t = 0; t < threads; t++) {
			long[] mine = waits[t];
			Thread worker = new Thread(() -> {
				awaitQuietly(start);
				for (int i = 0; i < borrows; i++) {
					long before = System.nanoTime();
					FreeItems.Item stream = pool.borrow(NORMAL);
					long got = System.nanoTime();
					mine[i] = got - before;
					while (System.nanoTime() - got < holdNanos) {
						Thread.onSpinWait();
					}
					pool.release(stream);
				}
			}, "borrower-" + t);
			worker.setDaemon(true);
			worker.start();
			workers.add(worker);
		}
		long began = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		double seconds = (System.nanoTime() - began) / 1e9;
		long[] all = Arrays.stream(waits).flatMapToLong(Arrays::stream).sorted().toArray();
		System.out.printf(Locale.ROOT,
				"%s: %.0f borrows/s (%.0f ms); wait p50 %.2f ms, p99 %.2f ms, max %.2f ms; pool %s%n", label,
				all.length / seconds, seconds * 1e3, LatencySummary.percentile(all, 50) / 1e6,
				LatencySummary.percentile(all, 99) / 1e6, all[all.length - 1] / 1e6, pool);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private record Options(int threads, int streams, int borrows, long holdMicros, int rounds) {

		static Options from(CommandLine line) {
			return new Options(line.intArgument(0, "THREADS", 2000), line.intArgument(1, "STREAMS", 16),
					line.intArgument(2, "BORROWS", 50), line.longArgument(3, "HOLD_µs", 20),
					line.intArgument(4, "ROUNDS", 3));
		}

	}

}
