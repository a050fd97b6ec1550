package dev.offload.concurrency.lincheck;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The Lincheck checks, by name, for the build's tests and for a run from a plain
 * classpath:
 * {@code java -Dconcurrency.mode=long -cp 'offload-concurrency-tests.jar:lib/*'
 * dev.offload.concurrency.lincheck.LincheckChecks ["pool, model checked" ...]}. Each
 * check throws Lincheck's error, with the failing interleaving, if it finds one.
 */
public final class LincheckChecks {

	private static final Map<String, Consumer<CheckMode>> CHECKS = new LinkedHashMap<>();

	static {
		CHECKS.put("pool, model checked",
				(mode) -> mode.modelChecking(3, 3)
					.sequentialSpecification(StreamPoolLinearizability.Unbounded.Specification.class)
					.check(StreamPoolLinearizability.Unbounded.class));
		CHECKS.put("bounded pool, stressed",
				(mode) -> mode.stress(3, 4)
					.sequentialSpecification(StreamPoolLinearizability.Bounded.Specification.class)
					.check(StreamPoolLinearizability.Bounded.class));
		CHECKS.put("lending pool, model checked",
				(mode) -> mode.modelChecking(3, 3)
					.sequentialSpecification(StreamPoolLinearizability.Unbounded.Specification.class)
					.check(LendingPoolLinearizability.Unbounded.class));
		CHECKS.put("bounded lending pool, stressed",
				(mode) -> mode.stress(3, 4)
					.sequentialSpecification(StreamPoolLinearizability.Bounded.Specification.class)
					.check(LendingPoolLinearizability.Bounded.class));
		CHECKS.put("waiting borrow, model checked",
				(mode) -> mode.modelChecking(3, 2)
					.sequentialSpecification(StreamPoolWaitLinearizability.Specification.class)
					.check(StreamPoolWaitLinearizability.class));
		CHECKS.put("waiting borrow, stressed",
				(mode) -> mode.stress(3, 3)
					.sequentialSpecification(StreamPoolWaitLinearizability.Specification.class)
					.check(StreamPoolWaitLinearizability.class));
		CHECKS.put("session life, model checked",
				(mode) -> mode.modelChecking(3, 3)
					.sequentialSpecification(SessionLifeLinearizability.Specification.class)
					.check(SessionLifeLinearizability.class));
		CHECKS.put("session life, stressed",
				(mode) -> mode.stress(3, 4)
					.sequentialSpecification(SessionLifeLinearizability.Specification.class)
					.check(SessionLifeLinearizability.class));
	}

	private LincheckChecks() {
	}

	/**
	 * Runs one check.
	 * @param name the check's name, one of {@link #names()}
	 * @param mode how long to search
	 * @throws IllegalArgumentException if no check has that name
	 */
	public static void run(String name, CheckMode mode) {
		Consumer<CheckMode> check = CHECKS.get(name);
		if (check == null) {
			throw new IllegalArgumentException("No Lincheck check named '" + name + "'; there are " + names());
		}
		check.accept(mode);
	}

	/**
	 * Returns the checks' names, in the order {@link #main} runs them.
	 * @return the names
	 */
	public static Iterable<String> names() {
		return CHECKS.keySet();
	}

	/**
	 * Runs the checks named in {@code args} (every check if none is) in the mode
	 * {@code concurrency.mode} names, and exits with 1 if one failed.
	 * @param args names of checks, see {@link #names()}
	 */
	public static void main(String[] args) {
		CheckMode mode = CheckMode.current();
		Iterable<String> selected = (args.length > 0) ? List.of(args) : names();
		int failed = 0;
		int passed = 0;
		for (String name : selected) {
			long start = System.nanoTime();
			try {
				run(name, mode);
				passed++;
				System.out.printf(Locale.ROOT, "PASSED %s (%s, %d s)%n", name, mode,
						(System.nanoTime() - start) / 1_000_000_000L);
			}
			catch (Throwable ex) {
				failed++;
				System.out.printf(Locale.ROOT, "FAILED %s (%s, %d s)%n%s%n", name, mode,
						(System.nanoTime() - start) / 1_000_000_000L, ex);
			}
		}
		System.out.printf(Locale.ROOT, "%d passed, %d failed%n", passed, failed);
		System.exit((failed > 0) ? 1 : 0);
	}

}
