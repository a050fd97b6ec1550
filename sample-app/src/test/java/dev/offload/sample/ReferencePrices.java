package dev.offload.sample;

import org.apache.commons.math3.distribution.NormalDistribution;

/**
 * Black-Scholes prices computed independently of the kernels, with Commons Math's normal
 * distribution.
 */
public final class ReferencePrices {

	private static final NormalDistribution NORMAL = new NormalDistribution();

	private ReferencePrices() {
	}

	/**
	 * Returns the normal CDF.
	 * @param x the argument
	 * @return {@code P(Z <= x)}
	 */
	public static double cdf(double x) {
		return NORMAL.cumulativeProbability(x);
	}

	/**
	 * Returns a European call's price.
	 * @param s spot
	 * @param k strike
	 * @param t maturity in years
	 * @param r rate
	 * @param v volatility
	 * @return the price
	 */
	public static double call(double s, double k, double t, double r, double v) {
		double d1 = (Math.log(s / k) + (r + v * v / 2) * t) / (v * Math.sqrt(t));
		double d2 = d1 - v * Math.sqrt(t);
		return s * cdf(d1) - k * Math.exp(-r * t) * cdf(d2);
	}

	/**
	 * Returns a European put's price.
	 * @param s spot
	 * @param k strike
	 * @param t maturity in years
	 * @param r rate
	 * @param v volatility
	 * @return the price
	 */
	public static double put(double s, double k, double t, double r, double v) {
		double d1 = (Math.log(s / k) + (r + v * v / 2) * t) / (v * Math.sqrt(t));
		double d2 = d1 - v * Math.sqrt(t);
		return k * Math.exp(-r * t) * cdf(-d2) - s * cdf(-d1);
	}

}
