package dev.offload.template;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link OffloadInvoker#execute}: the unchecked entry point for application code.
 */
class OffloadInvokerTests {

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).build())
		.build();

	private final OffloadInvoker invoker = new OffloadInvoker(this.registry);

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void executeShouldRunTheCallInASessionOnTheDeviceAskedFor() {
		OffloadSession used = this.invoker.execute(OffloadAttributes.DEFAULTS.withDevice(1),
				() -> OffloadSessionBinding.currentSession().orElseThrow());
		assertThat(used.device().id()).isOne();
		assertThat(used.isClosed()).isTrue();
	}

	@Test
	void executeWithAMemoryEstimateShouldReserveItBeforeTheCallRuns() {
		long reserved = this.invoker.execute(OffloadAttributes.DEFAULTS.withDevice(0).withMemoryBytes(4096),
				() -> OffloadSessionBinding.currentSession().orElseThrow().reservedMemory());
		assertThat(reserved).isEqualTo(4096);
		assertThat(this.registry.device(0).memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void executeWithAnEstimateLargerThanTheBudgetShouldFailBeforeTheCallAndEndTheSession() {
		long budget = this.registry.device(0).memoryStatistics().budgetBytes();
		assertThatExceptionOfType(MemoryBudgetExceededException.class).isThrownBy(() -> this.invoker
			.execute(OffloadAttributes.DEFAULTS.withDevice(0).withMemoryBytes(budget + 1), () -> "never"));
		assertThat(this.registry.device(0).activeSessions()).isZero();
	}

	@Test
	void executeWithNotSupportedShouldRunWithoutASession() {
		boolean bound = this.invoker.execute(OffloadAttributes.DEFAULTS.withPropagation(Propagation.NOT_SUPPORTED),
				() -> OffloadSessionBinding.currentSession().isPresent());
		assertThat(bound).isFalse();
	}

	@Test
	void executeWhenTheCallThrowsShouldRethrowItUnchangedAndEndTheSession() {
		IllegalStateException failure = new IllegalStateException("no quote");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.invoker.execute(OffloadAttributes.DEFAULTS, () -> {
				throw failure;
			}))
			.isSameAs(failure);
		assertThat(this.registry.device(0).activeSessions()).isZero();
	}

}
