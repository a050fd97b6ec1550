package dev.offload.sample.pricing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import dev.offload.BackendException;
import dev.offload.DeviceRegistry;
import dev.offload.sample.ReferencePrices;
import dev.offload.test.autoconfigure.OffloadTest;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.test.fault.FaultInjectingBackend;

import static dev.offload.test.OffloadAssertions.assertThat;
import static dev.offload.test.OffloadAssertions.assertThatExceptionOfType;
import static dev.offload.test.OffloadAssertions.within;

/**
 * The pricing services in Offload's test slice (the host backend, no web layer): prices
 * against an independent reference, a failed launch reported to the caller with its
 * stream discarded, and nothing left lent after either.
 */
@OffloadTest
@Import({ OptionPricingService.class, MonteCarloService.class })
class PricingServicesTests {

	@Autowired
	private OptionPricingService pricing;

	@Autowired
	private MonteCarloService monteCarlo;

	@Autowired
	private FaultInjectingBackend faults;

	@Autowired
	private DeviceRegistry registry;

	@AfterEach
	void clearFaults() {
		this.faults.clear();
	}

	@Test
	void priceShouldMatchTheReferenceAndLeaveNothingLent() {
		PricedBatch batch = this.pricing
			.price(List.of(new OptionSpec(90.0, 100.0, 1.0, 0.03, 0.2), new OptionSpec(110.0, 100.0, 0.5, -0.01, 0.4)));
		assertThat(batch.prices().get(0).call()).isCloseTo(ReferencePrices.call(90, 100, 1, 0.03, 0.2), within(1e-9));
		assertThat(batch.prices().get(1).put()).isCloseTo(ReferencePrices.put(110, 100, 0.5, -0.01, 0.4), within(1e-9));
		assertThat(this.registry).hasNothingLentAnywhere();
	}

	@Test
	void priceWhenTheLaunchFailsShouldThrowAndDiscardTheStream() {
		long discarded = this.registry.device(0).streamPool().statistics().discarded();
		this.faults.failNth(Operation.LAUNCH, 1);
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> this.pricing.price(List.of(new OptionSpec(100.0, 100.0, 1.0, 0.03, 0.2))))
			.withMessageContaining("INJECTED_FAULT");
		assertThat(this.registry.device(0).streamPool()).hasDiscarded(discarded + 1).hasNothingLent();
		assertThat(this.registry.device(0)).isHealthy();
	}

	@Test
	void monteCarloShouldCompleteWithinItsStatisticalErrorAndGiveItsStreamBack() {
		MonteCarloRequest request = new MonteCarloRequest(100.0, 95.0, 0.5, 0.02, 0.3, 65536, 7L);
		CompletableFuture<MonteCarloResult> simulation = this.monteCarlo.simulate(request);
		assertThat(simulation).completesWithin(Duration.ofMinutes(1));
		MonteCarloResult result = simulation.join();
		assertThat(result.price()).isCloseTo(ReferencePrices.call(100, 95, 0.5, 0.02, 0.3),
				within(5 * result.standardError()));
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
