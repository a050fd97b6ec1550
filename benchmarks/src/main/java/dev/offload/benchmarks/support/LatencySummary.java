package dev.offload.benchmarks.support;

import java.util.Arrays;

/**
 * Percentiles of a set of latencies, by the nearest-rank method on the sorted values.
 *
 * @param count the number of values
 * @param p50Nanos the median
 * @param p99Nanos the 99th percentile
 * @param p999Nanos the 99.9th percentile
 * @param maxNanos the largest value
 */
public record LatencySummary(int count, long p50Nanos, long p99Nanos, long p999Nanos, long maxNanos) {

	/** No values. */
	public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0);

	/**
	 * Summarises latencies.
	 * @param nanos the latencies, in any order; sorted in place
	 * @return the summary, {@link #EMPTY} for no values
	 */
	public static LatencySummary of(long[] nanos) {
		if (nanos.length == 0) {
			return EMPTY;
		}
		Arrays.sort(nanos);
		return new LatencySummary(nanos.length, percentile(nanos, 50), percentile(nanos, 99), percentile(nanos, 99.9),
				nanos[nanos.length - 1]);
	}

	/**
	 * Returns the smallest value that at least {@code percent} % of the sorted values do
	 * not exceed (the nearest rank), for every benchmark that reports percentiles.
	 * @param sorted the values, in ascending order, at least one
	 * @param percent the percentile, from 0 to 100
	 * @return the value at that rank
	 */
	public static long percentile(long[] sorted, double percent) {
		// The epsilon keeps a rank that is whole in decimal (99.9 % of 1000) from
		// rounding up in binary.
		int rank = (int) Math.ceil(percent * sorted.length / 100 - 1e-9);
		return sorted[Math.max(0, rank - 1)];
	}

	/**
	 * Returns the median of values such as the rounds' throughputs, for every benchmark
	 * that judges its rounds by their median: the middle value, or the mean of the middle
	 * two for an even count.
	 * @param values the values, in any order; not modified
	 * @return the median, {@code NaN} for no values
	 */
	public static double median(double[] values) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

}
