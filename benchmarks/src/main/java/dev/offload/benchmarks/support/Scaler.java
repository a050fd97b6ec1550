package dev.offload.benchmarks.support;

/**
 * One thread's way of running the {@link ScaleKernel} on an array, with what it allocated
 * once: the fluent call, the session API, or hand-written driver calls.
 */
public interface Scaler extends AutoCloseable {

	/**
	 * Returns {@code a * x}, computed on the device.
	 * @param x the input
	 * @param a the factor
	 * @return a new array
	 */
	float[] scale(float[] x, float a);

	@Override
	default void close() {
	}

}
