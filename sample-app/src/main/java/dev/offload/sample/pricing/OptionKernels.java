package dev.offload.sample.pricing;

import java.nio.DoubleBuffer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.kernel.HostThread;
import dev.offload.kernel.ModuleDefinition;

/**
 * The pricing kernels: CUDA C source ({@code kernels/options.cu}), which the CUDA backend
 * compiles with NVRTC for the GPU's architecture, and the same algorithms in Java for the
 * host backend, with the parameters the source declares.
 */
public final class OptionKernels {

	/** The Black-Scholes kernel's name. */
	public static final String BLACK_SCHOLES = "black_scholes";

	/** The Monte Carlo kernel's name. */
	public static final String MONTE_CARLO = "monte_carlo";

	/**
	 * The module: CUDA source plus host implementations; every launch is checked against
	 * the parameter kinds of the source's {@code extern "C" __global__} declarations.
	 */
	public static final ModuleDefinition MODULE = ModuleDefinition.builder("options")
		.cudaSourceResource("kernels/options.cu", OptionKernels.class.getClassLoader())
		.hostKernel(BLACK_SCHOLES, OptionKernels::blackScholes)
		.hostKernel(MONTE_CARLO, OptionKernels::monteCarlo)
		.build();

	private static final double TWO_PI = 6.283185307179586;

	private OptionKernels() {
	}

	/**
	 * Makes the module a bean, so that every device loads it (the CUDA backend compiles
	 * it) before the application is ready, and a kernel that does not compile stops
	 * startup.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Registration {

		@Bean
		ModuleDefinition optionKernels() {
			return MODULE;
		}

	}

	static void blackScholes(HostThread thread) {
		int n = thread.intArg(0);
		int i = thread.globalIdX();
		if (i >= n) {
			return;
		}
		DoubleBuffer in = thread.doubles(1);
		DoubleBuffer out = thread.doubles(2);
		double s = in.get(i);
		double k = in.get(n + i);
		double t = in.get(2 * n + i);
		double r = in.get(3 * n + i);
		double v = in.get(4 * n + i);
		double sqrtT = Math.sqrt(t);
		double d1 = (Math.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrtT);
		double d2 = d1 - v * sqrtT;
		double discount = k * Math.exp(-r * t);
		out.put(i, s * normcdf(d1) - discount * normcdf(d2));
		out.put(n + i, discount * normcdf(-d2) - s * normcdf(-d1));
	}

	static void monteCarlo(HostThread thread) {
		int pathsPerThread = thread.intArg(0);
		double s = thread.doubleArg(1);
		double k = thread.doubleArg(2);
		double t = thread.doubleArg(3);
		double r = thread.doubleArg(4);
		double v = thread.doubleArg(5);
		int id = thread.globalIdX();
		long[] state = { splitmix64(thread.longArg(6) + id) };
		if (state[0] == 0) {
			state[0] = 1;
		}
		double drift = (r - 0.5 * v * v) * t;
		double diffusion = v * Math.sqrt(t);
		double discount = Math.exp(-r * t);
		double sum = 0;
		double sumSquares = 0;
		for (int p = 0; p < pathsPerThread; p += 2) {
			double radius = Math.sqrt(-2.0 * Math.log(nextUniform(state)));
			double angle = TWO_PI * nextUniform(state);
			double[] z = { radius * Math.cos(angle), radius * Math.sin(angle) };
			for (int j = 0; j < 2 && p + j < pathsPerThread; j++) {
				double payoff = discount * Math.max(s * Math.exp(drift + diffusion * z[j]) - k, 0.0);
				sum += payoff;
				sumSquares += payoff * payoff;
			}
		}
		DoubleBuffer out = thread.doubles(7);
		out.put(2 * id, sum);
		out.put(2 * id + 1, sumSquares);
	}

	/**
	 * Prices a European call with the Black-Scholes closed form on the CPU.
	 * @param s the spot
	 * @param k the strike
	 * @param t the maturity in years
	 * @param r the rate
	 * @param v the volatility
	 * @return the call's price
	 */
	public static double closedFormCall(double s, double k, double t, double r, double v) {
		double sqrtT = Math.sqrt(t);
		double d1 = (Math.log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrtT);
		double d2 = d1 - v * sqrtT;
		return s * normcdf(d1) - k * Math.exp(-r * t) * normcdf(d2);
	}

	static long splitmix64(long seed) {
		long x = seed + 0x9E3779B97F4A7C15L;
		x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
		x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
		return x ^ (x >>> 31);
	}

	private static double nextUniform(long[] state) {
		long x = state[0];
		x ^= x >>> 12;
		x ^= x << 25;
		x ^= x >>> 27;
		state[0] = x;
		return ((double) ((x * 0x2545F4914F6CDD1DL) >>> 11) + 1.0) * (1.0 / 9007199254740992.0);
	}

	/**
	 * The standard normal CDF to double precision (Hart's algorithm, as given by G. West,
	 * "Better approximations to cumulative normal functions", 2005).
	 * @param x the argument
	 * @return {@code P(Z <= x)}
	 */
	static double normcdf(double x) {
		double abs = Math.abs(x);
		double c;
		if (abs > 37) {
			c = 0;
		}
		else {
			double e = Math.exp(-abs * abs / 2);
			if (abs < 7.07106781186547) {
				double b = 3.52624965998911E-02 * abs + 0.700383064443688;
				b = b * abs + 6.37396220353165;
				b = b * abs + 33.912866078383;
				b = b * abs + 112.079291497871;
				b = b * abs + 221.213596169931;
				b = b * abs + 220.206867912376;
				c = e * b;
				b = 8.83883476483184E-02 * abs + 1.75566716318264;
				b = b * abs + 16.064177579207;
				b = b * abs + 86.7807322029461;
				b = b * abs + 296.564248779674;
				b = b * abs + 637.333633378831;
				b = b * abs + 793.826512519948;
				b = b * abs + 440.413735824752;
				c = c / b;
			}
			else {
				double b = abs + 0.65;
				b = abs + 4 / b;
				b = abs + 3 / b;
				b = abs + 2 / b;
				b = abs + 1 / b;
				c = e / b / 2.506628274631;
			}
		}
		return (x > 0) ? 1 - c : c;
	}

}
