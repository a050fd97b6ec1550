package dev.offload.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.autoconfigure.ObservabilityWebTests;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint;

/**
 * Integration tests for {@link StreamPoolsEndpoint} over HTTP.
 */
@ObservabilityWebTests
class StreamPoolsEndpointWebIntegrationTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void streamPoolsWhenSessionsAreOpenShouldShowThemInUse() {
		try (OffloadSession first = this.registry.openSession(0);
				OffloadSession second = this.registry.device(0).openSession(StreamPriority.HIGH)) {
			first.streamId();
			second.streamId();
			this.client.get()
				.uri("/actuator/streampools")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.backend")
				.isEqualTo("host")
				.jsonPath("$.closed")
				.isEqualTo(false)
				.jsonPath("$.leakDetectionThreshold")
				.isEqualTo("PT10M")
				.jsonPath("$.devices.length()")
				.isEqualTo(2)
				.jsonPath("$.devices[0].id")
				.isEqualTo(0)
				.jsonPath("$.devices[0].name")
				.isEqualTo("Host device 0")
				.jsonPath("$.devices[0].backend")
				.isEqualTo("host")
				.jsonPath("$.devices[0].healthy")
				.isEqualTo(true)
				.jsonPath("$.devices[0].error")
				.doesNotExist()
				.jsonPath("$.devices[0].activeSessions")
				.isEqualTo(2)
				.jsonPath("$.devices[0].leakedSessions")
				.isEqualTo(0)
				.jsonPath("$.devices[0].pool.inUse")
				.isEqualTo(2)
				.jsonPath("$.devices[0].pool.size")
				.isEqualTo(2 * HostDeviceRegistryConfiguration.INITIAL_SIZE)
				.jsonPath("$.devices[0].pool.idle")
				.isEqualTo(2 * HostDeviceRegistryConfiguration.INITIAL_SIZE - 2)
				.jsonPath("$.devices[0].pool.bounded")
				.isEqualTo(false)
				.jsonPath("$.devices[0].pool.max")
				.doesNotExist()
				.jsonPath("$.devices[0].pool.byPriority.NORMAL.inUse")
				.isEqualTo(1)
				.jsonPath("$.devices[0].pool.byPriority.HIGH.inUse")
				.isEqualTo(1)
				.jsonPath("$.devices[1].pool.bounded")
				.isEqualTo(true)
				.jsonPath("$.devices[1].pool.max")
				.isEqualTo(HostDeviceRegistryConfiguration.MAX_SIZE)
				.jsonPath("$.devices[1].pool.inUse")
				.isEqualTo(0)
				.jsonPath("$.devices[0].sharing.mode")
				.isEqualTo("exclusive")
				.jsonPath("$.devices[0].sharing.mps")
				.doesNotExist()
				.jsonPath("$.devices[0].sharing.usableMemoryBytes")
				.isNumber();
		}
		this.client.get()
			.uri("/actuator/streampools/0")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.id")
			.isEqualTo(0)
			.jsonPath("$.activeSessions")
			.isEqualTo(0)
			.jsonPath("$.pool.inUse")
			.isEqualTo(0)
			.jsonPath("$.pool.idle")
			.isEqualTo(2 * HostDeviceRegistryConfiguration.INITIAL_SIZE)
			.jsonPath("$.pool.byPriority.HIGH.inUse")
			.isEqualTo(0)
			.jsonPath("$.pool.peakInUse")
			.isEqualTo(2);
	}

	@Test
	void deviceWhenSessionOpenShouldShowItAndEveryCounter() {
		try (OffloadSession session = this.registry.openSession(1)) {
			session.streamId();
			this.client.get()
				.uri("/actuator/streampools/1")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.id")
				.isEqualTo(1)
				.jsonPath("$.name")
				.isEqualTo("Host device 1")
				.jsonPath("$.healthy")
				.isEqualTo(true)
				.jsonPath("$.activeSessions")
				.isEqualTo(1)
				.jsonPath("$.pool.size")
				.isEqualTo(HostDeviceRegistryConfiguration.BOUNDED_INITIAL_SIZE)
				.jsonPath("$.pool.inUse")
				.isEqualTo(1)
				.jsonPath("$.pool.idle")
				.isEqualTo(HostDeviceRegistryConfiguration.BOUNDED_INITIAL_SIZE - 1)
				.jsonPath("$.pool.max")
				.isEqualTo(HostDeviceRegistryConfiguration.MAX_SIZE)
				.jsonPath("$.pool.waiting")
				.isEqualTo(0)
				.jsonPath("$.pool.borrows")
				.isNumber()
				.jsonPath("$.pool.grows")
				.isNumber()
				.jsonPath("$.pool.created")
				.isEqualTo(HostDeviceRegistryConfiguration.BOUNDED_INITIAL_SIZE)
				.jsonPath("$.pool.destroyed")
				.isEqualTo(0)
				.jsonPath("$.pool.discarded")
				.isEqualTo(0)
				.jsonPath("$.pool.timeouts")
				.isEqualTo(0)
				.jsonPath("$.pool.byPriority.NORMAL.size")
				.isEqualTo(HostDeviceRegistryConfiguration.BOUNDED_INITIAL_SIZE);
		}
		this.client.get()
			.uri("/actuator/streampools/1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.activeSessions")
			.isEqualTo(0)
			.jsonPath("$.pool.inUse")
			.isEqualTo(0);
	}

	@Test
	void deviceWhenUnknownShouldBeNotFound() {
		this.client.get().uri("/actuator/streampools/7").exchange().expectStatus().isNotFound();
	}

}
