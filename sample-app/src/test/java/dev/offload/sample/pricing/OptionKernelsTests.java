package dev.offload.sample.pricing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.sample.ReferencePrices;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The kernels' prices against an independent computation: the closed form with Commons
 * Math's normal distribution, and Monte Carlo within its statistical error.
 */
class OptionKernelsTests {

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
		this.template = new OffloadTemplate(this.registry);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void normcdfShouldMatchCommonsMath() {
		for (double x = -12; x <= 12; x += 0.01) {
			assertThat(OptionKernels.normcdf(x)).as("x=%s", x).isCloseTo(ReferencePrices.cdf(x), within(1e-14));
		}
	}

	@Test
	void blackScholesKernelShouldMatchTheClosedForm() {
		SplittableRandom random = new SplittableRandom(7);
		List<OptionSpec> options = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			options.add(new OptionSpec(50 + random.nextDouble(100), 50 + random.nextDouble(100),
					0.05 + random.nextDouble(3), random.nextDouble(-0.02, 0.08), 0.05 + random.nextDouble(0.8)));
		}
		PricedBatch batch = new OptionPricingService(this.template, java.time.Duration.ofSeconds(30)).price(options);
		assertThat(batch.backend()).isEqualTo("host");
		assertThat(batch.prices()).hasSize(1000);
		for (int i = 0; i < options.size(); i++) {
			OptionSpec o = options.get(i);
			PricedBatch.Price price = batch.prices().get(i);
			assertThat(price.call()).as("call %s", o)
				.isCloseTo(ReferencePrices.call(o.spot(), o.strike(), o.maturity(), o.rate(), o.volatility()),
						within(1e-9));
			assertThat(price.put()).as("put %s", o)
				.isCloseTo(ReferencePrices.put(o.spot(), o.strike(), o.maturity(), o.rate(), o.volatility()),
						within(1e-9));
		}
	}

	@Test
	void monteCarloShouldMatchTheClosedFormWithinItsError() {
		MonteCarloService service = new MonteCarloService(this.template);
		MonteCarloResult result = service.simulate(new MonteCarloRequest(100.0, 105.0, 1.0, 0.03, 0.25, 1 << 20, 11L))
			.join();
		double exact = ReferencePrices.call(100, 105, 1, 0.03, 0.25);
		assertThat(result.paths()).isGreaterThanOrEqualTo(1 << 20);
		assertThat(result.standardError()).isBetween(0.005, 0.05);
		assertThat(result.price()).isCloseTo(exact, within(4 * result.standardError()));
		assertThat(result.closedForm()).isCloseTo(exact, within(1e-9));
		assertThat(this.registry.device(0).streamPool().inUse()).isZero();
	}

	@Test
	void monteCarloWithTheSameSeedShouldRepeat() {
		MonteCarloService service = new MonteCarloService(this.template);
		MonteCarloRequest request = new MonteCarloRequest(100.0, 100.0, 0.5, 0.01, 0.3, 4096, 3L);
		assertThat(service.simulate(request).join().price()).isEqualTo(service.simulate(request).join().price());
	}

}
