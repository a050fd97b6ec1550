package dev.offload.sample.pricing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import dev.offload.StreamPriority;
import dev.offload.kernel.KernelRef;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadTemplate;

/**
 * Prices batches of European options with the Black-Scholes kernel: the light requests of
 * the sample.
 */
@Service
public class OptionPricingService {

	private static final KernelRef BLACK_SCHOLES = KernelRef.of(OptionKernels.MODULE, OptionKernels.BLACK_SCHOLES);

	private final OffloadTemplate template;

	private final OffloadAttributes light;

	/**
	 * Creates the service.
	 * @param template the template that lends sessions
	 * @param timeout the deadline of a batch, from asking for a stream to its prices
	 * ({@code sample.price.timeout}, 1 s by default)
	 */
	public OptionPricingService(OffloadTemplate template, @Value("${sample.price.timeout:1s}") Duration timeout) {
		this.template = template;
		// Light work: the high-priority class (its own streams, its blocks scheduled
		// first) and a short deadline, so a flood of heavy jobs never makes a price
		// request wait long: it is answered, or refused with 503, quickly.
		this.light = OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH).withTimeout(timeout);
	}

	/**
	 * Prices a batch on the least busy device, synchronously, at high priority within the
	 * batch's deadline.
	 * @param options the options, at least one
	 * @return the prices, in order
	 */
	public PricedBatch price(List<OptionSpec> options) {
		return price(options, this.light);
	}

	/**
	 * Prices a batch as {@link #price(List)} does, within what is left of a deadline that
	 * started earlier (when the request arrived).
	 * @param options the options, at least one
	 * @param timeout the time left, positive
	 * @return the prices, in order
	 */
	public PricedBatch price(List<OptionSpec> options, Duration timeout) {
		return price(options, this.light.withTimeout(timeout));
	}

	private PricedBatch price(List<OptionSpec> options, OffloadAttributes attributes) {
		int n = options.size();
		double[] input = new double[5 * n];
		for (int i = 0; i < n; i++) {
			OptionSpec option = options.get(i);
			input[i] = option.spot();
			input[n + i] = option.strike();
			input[2 * n + i] = option.maturity();
			input[3 * n + i] = option.rate();
			input[4 * n + i] = option.volatility();
		}
		KernelResult priced = blackScholes(n, input, attributes);
		double[] prices = priced.doubles(0);
		List<PricedBatch.Price> result = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			result.add(new PricedBatch.Price(prices[i], prices[n + i]));
		}
		return new PricedBatch(priced.device().id(), priced.device().backendName(), result);
	}

	/**
	 * The one kernel call: {@code n} options in structure-of-arrays order in, call and
	 * put prices out, at high priority within the deadline.
	 */
	private KernelResult blackScholes(int n, double[] input, OffloadAttributes attributes) {
		// __global__ void black_scholes(int n, const double* in, double* out)
		return this.template.kernel(BLACK_SCHOLES)
			.attributes(attributes)
			.threads(n, 128)
			.arg(n)
			.in(input)
			.outDoubles(2 * n)
			.run();
	}

}
