package dev.offload.autoconfigure.availability;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Over HTTP, with {@code offload.health.readiness.on-saturation=true}: readiness refuses
 * traffic while borrowers wait for a stream of a full pool and accepts it again once they
 * got one; liveness stays up throughout.
 */
@ReadinessProbeWebTest
@TestPropertySource(properties = "offload.health.readiness.on-saturation=true")
class SaturationReadinessWebIntegrationTests {

	private static final Duration HANG_GUARD = Duration.ofSeconds(30);

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void readinessWhenBorrowersWaitShouldRefuseTrafficUntilTheyGetAStream() throws Exception {
		StreamPool pool = this.registry.device(1).streamPool();
		CompletableFuture<Void> waiter;
		try (OffloadSession holder = this.registry.openSession(1)) {
			holder.streamId();
			assertThat(probe("readiness")).isEqualTo(200);
			waiter = CompletableFuture.runAsync(() -> {
				try (OffloadSession session = this.registry.openSession(1)) {
					session.streamId();
				}
			});
			await().atMost(HANG_GUARD).until(pool::waiting, (waiting) -> waiting == 1);
			assertThat(probe("readiness")).isEqualTo(503);
			assertThat(probe("liveness")).isEqualTo(200);
		}
		waiter.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
		assertThat(pool.waiting()).isZero();
		assertThat(probe("readiness")).isEqualTo(200);
	}

	private int probe(String probe) {
		return this.client.get()
			.uri("/actuator/health/" + probe)
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

}
