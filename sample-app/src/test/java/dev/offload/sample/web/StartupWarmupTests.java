package dev.offload.sample.web;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import dev.offload.DeviceRegistry;
import dev.offload.sample.OffloadSampleApplication;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the first requests need runs before readiness goes UP: by the time the application
 * accepts traffic, the price path has borrowed streams and launched its kernel (and the
 * dispatcher servlet was started with the application), so the first request does not pay
 * for it. On the host emulation the kernels' workers leave a CPU to the request threads.
 * The application runs in its own context, to watch its readiness change.
 */
class StartupWarmupTests {

	@Test
	void pricePathShouldBeWarmWhenReadinessGoesUp() {
		AtomicLong borrowsWhenReady = new AtomicLong(-1);
		ApplicationListener<AvailabilityChangeEvent<?>> watch = (event) -> {
			if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC
					&& event.getSource() instanceof ConfigurableApplicationContext context) {
				borrowsWhenReady
					.set(context.getBean(DeviceRegistry.class).device(0).streamPool().statistics().borrows());
			}
		};
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OffloadSampleApplication.class)
			.listeners(watch)
			.run("--server.port=0", "--management.server.port=0", "--offload.backend=host")) {
			assertThat(borrowsWhenReady.get()).as("streams borrowed when readiness went UP").isGreaterThanOrEqualTo(2);
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(registry.device(0).info().multiprocessorCount())
				.isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
		}
	}

}
