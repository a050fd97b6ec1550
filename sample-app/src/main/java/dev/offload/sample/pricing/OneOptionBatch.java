package dev.offload.sample.pricing;

import java.util.List;

import dev.offload.kernel.KernelRef;
import dev.offload.template.BatchKernel;
import dev.offload.template.KernelCall;
import dev.offload.template.KernelResult;

/**
 * Prices the one-option requests of concurrent callers with one Black-Scholes launch per
 * batch; each caller gets its option's call and put, and the device that priced it.
 */
final class OneOptionBatch implements BatchKernel<OptionSpec, PricedBatch> {

	private static final KernelRef BLACK_SCHOLES = KernelRef.of(OptionKernels.MODULE, OptionKernels.BLACK_SCHOLES);

	@Override
	public KernelRef kernel() {
		return BLACK_SCHOLES;
	}

	@Override
	public void gather(List<OptionSpec> options, KernelCall call) {
		// __global__ void black_scholes(int n, const double* in, double* out)
		int n = options.size();
		call.threads(n, 128).arg(n).in(OptionPricingService.input(options)).outDoubles(2 * n);
	}

	@Override
	public PricedBatch slice(KernelResult result, int index) {
		double[] prices = result.doubles(0);
		int n = prices.length / 2;
		return new PricedBatch(result.device().id(), result.device().backendName(),
				List.of(new PricedBatch.Price(prices[index], prices[n + index])));
	}

}
