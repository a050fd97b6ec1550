package dev.offload.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.backend.host.HostBackend;

/**
 * Rounds of requests on virtual threads against one stream pool, on the host backend:
 * each request opens a session, borrows its stream, holds it for about
 * {@value #HOLD_MICROS} µs (a kernel in flight, parked) and closes the session. A round's
 * requests are all submitted at once, so an unbounded pool grows to thousands of streams,
 * most of them lent at the peak; each request runs on a new virtual thread, so its borrow
 * never finds the stream its thread released last. Prints per round the requests per
 * second, the borrow's p50 and p99 (the {@code streamId()} call that borrows), the
 * request's p50 and p99 from submission to done, and the pool's size and peak in use
 * after the round. A borrow whose cost grows with the pool shows as rounds that slow down
 * once the pool is large, where a bounded pool stays level.
 * <p>
 * Needs Java 21+ for the virtual threads. Usage:
 * {@code java -cp ... dev.offload.benchmarks.UnboundedPoolRounds [requests [rounds [max streams]]]},
 * by default 10,000 requests, 8 rounds, an unbounded pool (max streams 0).
 */
public final class UnboundedPoolRounds {

	/**
	 * How long a request holds its stream on average; from half to one and a half times
	 * that.
	 */
	static final int HOLD_MICROS = 1000;

	private UnboundedPoolRounds() {
	}

	/**
	 * Runs the rounds and prints a row per round.
	 * @param args requests per round, rounds, the pool's bound (0 for none)
	 * @throws Exception if a request failed
	 */
	public static void main(String[] args) throws Exception {
		int requests = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 8;
		int maxStreams = (args.length > 2) ? Integer.parseInt(args[2]) : 0;
		System.out.printf(Locale.ROOT,
				"# %d requests a round on virtual threads, each holding a stream about %d µs; pool max %s; %d CPUs, Java %s%n%n",
				requests, HOLD_MICROS, (maxStreams == 0) ? "unbounded" : maxStreams,
				Runtime.getRuntime().availableProcessors(), Runtime.version());
		System.out.println("| round | requests/s | borrow p50 | borrow p99 | request p50 | request p99 | pool size "
				+ "| peak in use |");
		System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
		StreamPoolConfig pool = StreamPoolConfig.DEFAULTS.withMaxSize(maxStreams)
			.withBorrowTimeout(Duration.ofMinutes(5));
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build())
			.deviceIds(List.of(0))
			.streamPool(pool)
			.build()) {
			Device device = registry.device(0);
			for (int round = 1; round <= rounds; round++) {
				round(device, round, requests);
			}
		}
	}

	private static void round(Device device, int round, int requests) throws Exception {
		long[] borrowNanos = new long[requests];
		long[] requestNanos = new long[requests];
		CountDownLatch done = new CountDownLatch(requests);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		ExecutorService executor = newVirtualThreadPerTaskExecutor();
		long start = System.nanoTime();
		try {
			for (int i = 0; i < requests; i++) {
				int index = i;
				executor.execute(() -> {
					try (OffloadSession session = device.openSession()) {
						long borrow = System.nanoTime();
						session.streamId();
						borrowNanos[index] = System.nanoTime() - borrow;
						// Holds of different lengths, so that streams come back in
						// another order
						// than they were lent.
						LockSupport.parkNanos(TimeUnit.MICROSECONDS
							.toNanos(HOLD_MICROS / 2 + ThreadLocalRandom.current().nextInt(HOLD_MICROS)));
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
					requestNanos[index] = System.nanoTime() - start;
					done.countDown();
				});
			}
			done.await();
		}
		finally {
			executor.shutdown();
		}
		long wallNanos = System.nanoTime() - start;
		if (failure.get() != null) {
			throw new IllegalStateException("A request failed", failure.get());
		}
		StreamPoolStatistics statistics = device.streamPool().statistics();
		Arrays.sort(borrowNanos);
		Arrays.sort(requestNanos);
		System.out.printf(Locale.ROOT, "| %d | %.0f | %s | %s | %s | %s | %d | %d |%n", round,
				requests * 1e9 / wallNanos, micros(percentile(borrowNanos, 50)), micros(percentile(borrowNanos, 99)),
				micros(percentile(requestNanos, 50)), micros(percentile(requestNanos, 99)), statistics.size(),
				statistics.peakInUse());
	}

	private static long percentile(long[] sorted, int percent) {
		return sorted[Math.min(sorted.length - 1, (int) ((long) sorted.length * percent / 100))];
	}

	private static String micros(long nanos) {
		return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
	}

	private static ExecutorService newVirtualThreadPerTaskExecutor() {
		try {
			// Compiled for Java 17: the Java 21 factory is called by reflection.
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21+", ex);
		}
	}

}
