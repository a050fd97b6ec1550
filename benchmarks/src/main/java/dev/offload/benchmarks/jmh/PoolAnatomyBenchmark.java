package dev.offload.benchmarks.jmh;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The parts that one borrow + release of {@link dev.offload.StreamPool} is made of, each
 * alone, to tell what its time goes to: the two {@code System.nanoTime()} calls that time
 * the borrow for the listener, the {@link ConcurrentLinkedDeque} of idle streams, and the
 * shared counters it updates.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PoolAnatomyBenchmark {

	private final ConcurrentLinkedDeque<Object> idle = new ConcurrentLinkedDeque<>();

	private final AtomicInteger state = new AtomicInteger();

	private final AtomicInteger idleCount = new AtomicInteger();

	private final AtomicInteger classInUse = new AtomicInteger();

	private final AtomicInteger inUse = new AtomicInteger();

	private final AtomicInteger peakInUse = new AtomicInteger();

	private final LongAdder borrows = new LongAdder();

	/**
	 * Fills the deque with 32 entries, as the pool's first borrow does.
	 */
	@Setup
	public void setUp() {
		for (int i = 0; i < 32; i++) {
			this.idle.offerFirst(new Object());
		}
	}

	/**
	 * The borrow's timing: two clock reads.
	 * @return the elapsed time
	 */
	@Benchmark
	public long nanoTimeTwice() {
		long start = System.nanoTime();
		return System.nanoTime() - start;
	}

	/**
	 * The idle streams: {@code pollFirst} then {@code offerFirst} (a node allocated per
	 * release).
	 * @return the entry
	 */
	@Benchmark
	public Object dequePollOffer() {
		Object entry = this.idle.pollFirst();
		this.idle.offerFirst(entry);
		return entry;
	}

	/**
	 * The stream's state (two compare-and-sets) and the pool's counters (eight atomic
	 * updates, one adder) as borrow and release change them.
	 * @return the number in use
	 */
	@Benchmark
	public int stateAndCounters() {
		this.state.compareAndSet(0, 1);
		this.idleCount.decrementAndGet();
		this.borrows.increment();
		this.classInUse.incrementAndGet();
		int now = this.inUse.incrementAndGet();
		int peak = this.peakInUse.get();
		if (now > peak) {
			this.peakInUse.compareAndSet(peak, now);
		}
		this.state.compareAndSet(1, 0);
		this.classInUse.decrementAndGet();
		this.inUse.decrementAndGet();
		this.idleCount.incrementAndGet();
		return now;
	}

}
