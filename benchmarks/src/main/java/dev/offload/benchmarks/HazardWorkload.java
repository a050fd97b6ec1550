package dev.offload.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.offload.benchmarks.support.LatencySummary;

/**
 * The tasks of one measured run: {@code sessions} tasks taken in order by {@code threads}
 * threads; task {@code i} is heavy when {@code i % heavyEvery == 0} (unless light-only),
 * light otherwise. Each task's latency is taken from before it gets its stream to after
 * its stream is given up. With {@code heavyAlways} threads besides, heavy tasks run back
 * to back for the whole run (a heavy kernel is always running), and the heavy latencies
 * are theirs.
 *
 * @param threads the threads running tasks
 * @param sessions the number of tasks
 * @param heavyEvery one heavy task in every this many; 0 for none
 * @param heavyNanos how long a heavy task's kernel spins
 * @param lightNanos how long a light task's kernel spins
 * @param heavyAlways threads that run heavy tasks back to back while the tasks run
 */
record HazardWorkload(int threads, int sessions, int heavyEvery, long heavyNanos, long lightNanos, int heavyAlways) {

	HazardWorkload(int threads, int sessions, int heavyEvery, long heavyNanos, long lightNanos) {
		this(threads, sessions, heavyEvery, heavyNanos, lightNanos, 0);
	}

	HazardWorkload {
		if (threads < 1 || sessions < 1 || heavyEvery < 0 || heavyNanos < 0 || lightNanos < 0 || heavyAlways < 0) {
			throw new IllegalArgumentException("threads and sessions must be at least 1, the rest at least 0; was "
					+ threads + " threads, " + sessions + " sessions, heavy every " + heavyEvery);
		}
	}

	/**
	 * Returns the same workload with light tasks only.
	 * @return the light-only workload
	 */
	HazardWorkload lightOnly() {
		return new HazardWorkload(this.threads, this.sessions, 0, this.heavyNanos, this.lightNanos, 0);
	}

	/**
	 * Returns the same workload with another number of tasks.
	 * @param count the number of tasks
	 * @return the workload
	 */
	HazardWorkload withSessions(int count) {
		return new HazardWorkload(this.threads, count, this.heavyEvery, this.heavyNanos, this.lightNanos,
				this.heavyAlways);
	}

	boolean isHeavy(int task) {
		return this.heavyEvery > 0 && task % this.heavyEvery == 0;
	}

	/**
	 * Runs every task with {@code strategy}.
	 * @param strategy how tasks get their streams
	 * @return the wall time and the light and heavy latencies
	 * @throws IllegalStateException if a task failed
	 */
	Result run(HazardStrategy strategy) {
		long[] latencies = new long[this.sessions];
		AtomicInteger next = new AtomicInteger();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			Thread worker = new Thread(() -> work(strategy, start, next, latencies, failure), "hazard-" + t);
			worker.start();
			workers.add(worker);
		}
		AtomicBoolean done = new AtomicBoolean();
		List<Thread> heavyWorkers = new ArrayList<>();
		List<long[]> heavyLatencies = new ArrayList<>();
		for (int t = 0; t < this.heavyAlways; t++) {
			long[] mine = new long[1 + (int) Math.min(1_000_000, 600_000_000_000L / Math.max(1, this.heavyNanos))];
			heavyLatencies.add(mine);
			Thread worker = new Thread(() -> workHeavy(strategy, start, done, mine, failure), "hazard-heavy-" + t);
			worker.start();
			heavyWorkers.add(worker);
		}
		long begin = System.nanoTime();
		start.countDown();
		joinAll(workers);
		long wallNanos = System.nanoTime() - begin;
		done.set(true);
		joinAll(heavyWorkers);
		if (failure.get() != null) {
			throw new IllegalStateException("A task failed: " + failure.get(), failure.get());
		}
		Result result = summarise(wallNanos, latencies);
		if (this.heavyAlways == 0) {
			return result;
		}
		long[] heavy = heavyLatencies.stream()
			.flatMapToLong((each) -> Arrays.stream(each, 1, 1 + (int) each[0]))
			.toArray();
		return new Result(wallNanos, result.light(), LatencySummary.of(heavy));
	}

	/**
	 * Runs heavy tasks back to back until {@code done}; {@code latencies[0]} counts them.
	 */
	private void workHeavy(HazardStrategy strategy, CountDownLatch start, AtomicBoolean done, long[] latencies,
			AtomicReference<Throwable> failure) {
		try {
			start.await();
			while (!done.get() && failure.get() == null && latencies[0] < latencies.length - 1) {
				long begin = System.nanoTime();
				strategy.runTask(this.heavyNanos);
				latencies[1 + (int) latencies[0]++] = System.nanoTime() - begin;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failure.compareAndSet(null, ex);
		}
		catch (RuntimeException | Error ex) {
			failure.compareAndSet(null, ex);
		}
	}

	private void work(HazardStrategy strategy, CountDownLatch start, AtomicInteger next, long[] latencies,
			AtomicReference<Throwable> failure) {
		try {
			start.await();
			int task;
			while ((task = next.getAndIncrement()) < this.sessions && failure.get() == null) {
				long nanos = isHeavy(task) ? this.heavyNanos : this.lightNanos;
				long begin = System.nanoTime();
				strategy.runTask(nanos);
				latencies[task] = System.nanoTime() - begin;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failure.compareAndSet(null, ex);
		}
		catch (RuntimeException | Error ex) {
			failure.compareAndSet(null, ex);
		}
	}

	private static void joinAll(List<Thread> workers) {
		for (Thread worker : workers) {
			try {
				worker.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the tasks", ex);
			}
		}
	}

	private Result summarise(long wallNanos, long[] latencies) {
		int heavyCount = 0;
		for (int task = 0; task < this.sessions; task++) {
			heavyCount += isHeavy(task) ? 1 : 0;
		}
		long[] light = new long[this.sessions - heavyCount];
		long[] heavy = new long[heavyCount];
		int l = 0;
		int h = 0;
		for (int task = 0; task < this.sessions; task++) {
			if (isHeavy(task)) {
				heavy[h++] = latencies[task];
			}
			else {
				light[l++] = latencies[task];
			}
		}
		return new Result(wallNanos, LatencySummary.of(light), LatencySummary.of(heavy));
	}

	/**
	 * What one run measured.
	 *
	 * @param wallNanos from the start of the first task to the end of the last
	 * @param light the light tasks' latencies
	 * @param heavy the heavy tasks' latencies
	 */
	record Result(long wallNanos, LatencySummary light, LatencySummary heavy) {

	}

}
