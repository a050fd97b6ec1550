package dev.offload.benchmarks;

import java.nio.DoubleBuffer;
import java.util.List;

import dev.offload.kernel.HostThread;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

/**
 * The module of the {@code black_scholes(int n, const double* in, double* out)} kernel
 * (the sample app's pricing kernel): on CUDA the PTX in {@code kernels/black_scholes.ptx}
 * (built from {@code src/main/cuda/black_scholes.cu}); on the host backend the same
 * formula in Java. {@code in} holds n spots, then n strikes, maturities, rates and
 * volatilities; {@code out} n calls, then n puts.
 */
final class BlackScholesKernel {

	static final ModuleDefinition MODULE = ModuleDefinition.builder("offload-benchmarks-black-scholes")
		.imageResource("kernels/black_scholes.ptx", BlackScholesKernel.class.getClassLoader())
		.hostKernel("black_scholes", List.of(ParamKind.INT32, ParamKind.POINTER, ParamKind.POINTER),
				BlackScholesKernel::blackScholes)
		.build();

	static final KernelRef BLACK_SCHOLES = KernelRef.of(MODULE, "black_scholes");

	private BlackScholesKernel() {
	}

	private static void blackScholes(HostThread thread) {
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

	/**
	 * The standard normal CDF to double precision (Hart's algorithm, as given by G. West,
	 * "Better approximations to cumulative normal functions", 2005).
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
