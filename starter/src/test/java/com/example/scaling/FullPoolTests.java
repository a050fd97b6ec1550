package com.example.scaling;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.OffloadTemplate;
import dev.offload.test.kernel.Gate;
import dev.offload.test.kernel.TestKernels;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * A pool of one stream held by a gate, without Spring: the next borrower times out, and
 * the pool counts it.
 */
class FullPoolTests {

	@Test
	void submitWhenTheOnlyStreamIsHeldShouldTimeOutAndCountIt() throws Exception {
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build())
			.streamPool(new StreamPoolConfig(1, 1, Duration.ofMillis(50)))
			.build(); Gate gate = Gate.create()) {
			OffloadTemplate offload = new OffloadTemplate(registry);
			CompletableFuture<Void> held = offload.submit((session) -> {
				gate.launch(session);
				return null;
			});
			assertThat(gate.awaitStarted(Duration.ofSeconds(30))).isTrue();
			assertThat(registry.device(0).streamPool()).hasInUse(1).hasIdle(0);
			CompletableFuture<Void> next = offload.submit((session) -> {
				session.launch(TestKernels.NOOP, LaunchConfig.of(1, 1));
				return null;
			});
			assertThat(next).failsWith(StreamBorrowTimeoutException.class);
			assertThat(registry.device(0).streamPool()).hasTimeouts(1);
			gate.release();
			assertThat(held).completesWithin(Duration.ofSeconds(30));
			assertThat(registry).hasNothingLentAnywhere();
		}
	}

}
