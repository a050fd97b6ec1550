package dev.offload.concurrency.lincheck;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * How long the Lincheck checks search: {@code quick} for every build, {@code long} for a
 * machine with many cores. Chosen by the system property {@code concurrency.mode}.
 */
public enum CheckMode {

	/** Under a minute of CPU per check: the build's mode. */
	QUICK(30, 100, 5, 1_000),

	/**
	 * About ten times the scenarios and interleavings: minutes per check, one core each.
	 */
	LONG(100, 300, 30, 5_000);

	private final int modelIterations;

	private final int modelInvocations;

	private final int stressIterations;

	private final int stressInvocations;

	CheckMode(int modelIterations, int modelInvocations, int stressIterations, int stressInvocations) {
		this.modelIterations = modelIterations;
		this.modelInvocations = modelInvocations;
		this.stressIterations = stressIterations;
		this.stressInvocations = stressInvocations;
	}

	/**
	 * Returns the mode the system property {@code concurrency.mode} names, quick when it
	 * is not set.
	 * @return the mode
	 * @throws IllegalArgumentException if the property names no mode
	 */
	public static CheckMode current() {
		String name = System.getProperty("concurrency.mode", "quick");
		for (CheckMode mode : values()) {
			if (mode.name().equalsIgnoreCase(name)) {
				return mode;
			}
		}
		throw new IllegalArgumentException("concurrency.mode must be 'quick' or 'long', was '" + name + "'");
	}

	/**
	 * Returns model-checking options of this mode's length.
	 * @param threads the threads of the parallel part
	 * @param actorsPerThread the operations per thread
	 * @return the options
	 */
	public ModelCheckingOptions modelChecking(int threads, int actorsPerThread) {
		return new ModelCheckingOptions().iterations(this.modelIterations)
			.invocationsPerIteration(this.modelInvocations)
			.threads(threads)
			.actorsPerThread(actorsPerThread);
	}

	/**
	 * Returns stress options of this mode's length.
	 * @param threads the threads of the parallel part
	 * @param actorsPerThread the operations per thread
	 * @return the options
	 */
	public StressOptions stress(int threads, int actorsPerThread) {
		return new StressOptions().iterations(this.stressIterations)
			.invocationsPerIteration(this.stressInvocations)
			.threads(threads)
			.actorsPerThread(actorsPerThread);
	}

}
