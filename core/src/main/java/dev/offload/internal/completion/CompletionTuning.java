package dev.offload.internal.completion;

import java.util.concurrent.TimeUnit;

/**
 * The tuning of a device's completion engine, in one place: how long its threads spin,
 * yield and park, how its completion thread sweeps, and when joiners finish their own
 * sessions. None of them is a setting; the registry's completion executor is what users
 * choose. Not API.
 */
public final class CompletionTuning {

	/** The machine's processors: more sessions open than these fill them. */
	public static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

	/**
	 * How long a joining thread spins on its processor before it does something dearer:
	 * parks (waking a parked thread costs several microseconds, as long as a short
	 * kernel), or leaves a session the completion thread queries to it (a query takes
	 * about a microsecond).
	 */
	public static final long JOINER_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

	/**
	 * How long a joining thread has waited, spinning then yielding its processor so that
	 * a busy completion thread runs, before it parks.
	 */
	public static final long JOINER_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	/**
	 * How many sessions closed asynchronously the completion thread finishes, and wakes
	 * the joiners of, before joiners finish their own: half the processors. On the H200
	 * (16 processors), a lone joiner woken by the completion thread took 1.14 times a
	 * synchronous close, one that finished its own session 1.24 times (the completion
	 * thread woken for nothing, and querying the same stream); 64 joiners woken one after
	 * another took 1.39 to 1.97 times raw JCuda's wall time, 64 that finished their own
	 * 1.28 times, and 1.09 times once they waited for a session the completion thread was
	 * querying instead of leaving it to it.
	 */
	public static final int JOINERS_WOKEN = Math.max(1, PROCESSORS / 2);

	/**
	 * How long the completion thread, with nothing pending, spins before it parks until
	 * the next submission: sessions often close back to back, and waking a parked thread
	 * costs several microseconds, measured on an H200 as a closeAsync completion p50 of
	 * 15.0 µs against 9.4 µs for a synchronous close.
	 */
	public static final long IDLE_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

	/** Sweeps finding nothing done in which the completion thread spins. */
	public static final int SPIN_ROUNDS = 200;

	/**
	 * Sweeps finding nothing done, counted from the first, until which the completion
	 * thread yields; it parks after them.
	 */
	public static final int YIELD_ROUNDS = 400;

	/** The completion thread's first park once it stops yielding. */
	public static final long FIRST_PARK_NANOS = 1_000;

	/** The idle sweeps after which its park doubles, up to {@link #MAX_PARK_NANOS}. */
	public static final int PARK_DOUBLING_ROUNDS = 8;

	/**
	 * The completion thread's longest park with work pending: how late, at most, it sees
	 * long work done.
	 */
	public static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	/** Not-done tasks in a row after which a sweep stops, but every full one. */
	public static final int NOT_DONE_RUN = 64;

	/** Every how many sweeps one polls every pending task. */
	public static final int FULL_SWEEP_EVERY = 8;

	/**
	 * How long shutdown waits for the completion thread to fail the tasks it abandons, so
	 * that the caller of shutdown sees their futures settled.
	 */
	public static final long ABANDON_JOIN_MILLIS = TimeUnit.SECONDS.toMillis(10);

	private CompletionTuning() {
	}

}
