package dev.offload.sample.risk;

import java.util.SplittableRandom;

/**
 * Standard normal draws from a seed: Box-Muller on {@link SplittableRandom}, whose
 * sequence for a seed is fixed, so the same seed gives the same draws on every JVM.
 */
final class NormalDraws {

	private NormalDraws() {
	}

	/**
	 * Fills an {@code S x F} column-major matrix with draws, scenario after scenario:
	 * scenario {@code s}'s draws are numbers {@code s F} to {@code s F + F - 1} of the
	 * sequence, whatever {@code S} is.
	 * @param seed the seed
	 * @param scenarios {@code S}
	 * @param factors {@code F}
	 * @return the draws
	 */
	static double[] matrix(long seed, int scenarios, int factors) {
		SplittableRandom random = new SplittableRandom(seed);
		double[] z = new double[Math.multiplyExact(scenarios, factors)];
		double spare = 0;
		boolean hasSpare = false;
		for (int s = 0; s < scenarios; s++) {
			for (int f = 0; f < factors; f++) {
				double value;
				if (hasSpare) {
					value = spare;
					hasSpare = false;
				}
				else {
					// 1 - u is in (0, 1]: the logarithm is finite.
					double radius = Math.sqrt(-2 * Math.log(1 - random.nextDouble()));
					double angle = 2 * Math.PI * random.nextDouble();
					value = radius * Math.cos(angle);
					spare = radius * Math.sin(angle);
					hasSpare = true;
				}
				z[s + scenarios * f] = value;
			}
		}
		return z;
	}

}
