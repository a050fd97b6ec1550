package dev.offload.benchmarks.jmh;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryConfig;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

/**
 * The memory path's own cost, by every thread of the run on one device of the host
 * backend (whose device memory is a direct buffer allocated once, on the first miss; what
 * is measured is Offload's code): a cache hit's acquire and release of an
 * application-owned buffer (budget admission, size class, cache poll, buffer, cache
 * offer, budget release), and a session's reservation in the budget with its opening and
 * closing, with its two parts apart: a session's opening and closing alone, and the
 * budget's admission and release alone. Run with {@code -t 1} and {@code -t 16}:
 * {@code java -jar benchmarks.jar MemoryBenchmark -t 16}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class MemoryBenchmark {

	/** The reservation of a session and the request of the budget alone. */
	private static final long MIB = 1 << 20;

	/**
	 * The device's budget, read from {@code Device}'s private {@code memory} field (the
	 * budget is not public API): {@code (Device)Object}.
	 */
	private static final MethodHandle BUDGET;

	/**
	 * {@code DeviceMemory.acquireBudget(bytes, timeoutNanos)}, at normal priority with no
	 * deadline: {@code (Object, long, long)void}.
	 */
	private static final MethodHandle ACQUIRE;

	/** {@code DeviceMemory.releaseBudget(bytes)}: {@code (Object, long)void}. */
	private static final MethodHandle RELEASE;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Device.class, MethodHandles.lookup());
			Class<?> budget = Class.forName("dev.offload.internal.memory.DeviceMemory");
			BUDGET = lookup.findGetter(Device.class, "memory", budget)
				.asType(MethodType.methodType(Object.class, Device.class));
			ACQUIRE = lookup
				.findVirtual(budget, "acquireBudget", MethodType.methodType(void.class, long.class, long.class))
				.asType(MethodType.methodType(void.class, Object.class, long.class, long.class));
			RELEASE = lookup.findVirtual(budget, "releaseBudget", MethodType.methodType(void.class, long.class))
				.asType(MethodType.methodType(void.class, Object.class, long.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private DeviceRegistry registry;

	private Device device;

	private Object budget;

	/**
	 * Builds one host device with a budget of 90% of 1 GiB.
	 */
	@Setup(Level.Trial)
	public void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().memoryBytes(1L << 30).build())
			.memory(MemoryConfig.DEFAULTS)
			.build();
		this.device = this.registry.device(0);
		try {
			this.budget = (Object) BUDGET.invokeExact(this.device);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Closes the registry.
	 */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	/**
	 * A cache hit: a 4 KiB device buffer admitted by the budget, taken from the cache,
	 * given back to both.
	 * @return the buffer's size, so that nothing is eliminated
	 */
	@Benchmark
	public long cacheHitAcquireRelease() {
		var buffer = this.device.allocate(4096);
		long size = buffer.size();
		buffer.close();
		return size;
	}

	/**
	 * A session admitted by the budget: open, reserve 1 MiB, close (no stream borrowed).
	 * @return the reservation, so that nothing is eliminated
	 */
	@Benchmark
	public long sessionBudgetAdmission() {
		try (OffloadSession session = this.device.openSession()) {
			return session.reserveMemory(1 << 20).reservedMemory();
		}
	}

	/**
	 * A session's opening and closing alone, with nothing reserved and no stream: what
	 * {@link #sessionBudgetAdmission()} costs beside the budget.
	 * @return the session's id, so that nothing is eliminated
	 */
	@Benchmark
	public long sessionOpenClose() {
		try (OffloadSession session = this.device.openSession()) {
			return session.id();
		}
	}

	/**
	 * The budget alone: admit 1 MiB (as {@link #sessionBudgetAdmission()} reserves) and
	 * release it, with no session.
	 * @return the bytes, so that nothing is eliminated
	 * @throws Throwable never: the budget's calls throw nothing checked
	 */
	@Benchmark
	public long budgetAcquireRelease() throws Throwable {
		ACQUIRE.invokeExact(this.budget, MIB, Long.MAX_VALUE);
		RELEASE.invokeExact(this.budget, MIB);
		return MIB;
	}

	/**
	 * Returns the device's bytes in use, for a check that the benchmarks give back what
	 * they take.
	 * @return the bytes in use
	 */
	long usedBytes() {
		return this.device.memoryStatistics().usedBytes();
	}

}
