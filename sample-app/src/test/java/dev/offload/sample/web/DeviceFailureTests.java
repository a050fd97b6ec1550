package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;
import dev.offload.test.fault.FaultInjectingBackend;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * A device lost while the service runs (failed through Offload's test backend): price
 * requests get a 503 that does not repeat the device's error, and the dashboard's pools
 * show the device unhealthy without the error either.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureOffload
@DirtiesContext // a lost device stays lost
class DeviceFailureTests {

	@LocalServerPort
	int port;

	@Autowired
	FaultInjectingBackend faults;

	@Autowired
	DeviceRegistry registry;

	@Test
	void priceWhenTheDeviceIsLostShouldBeA503WithoutTheDevicesError() throws Exception {
		this.faults.failDevice(0, "Xid 79: the GPU has fallen off the bus");
		HttpResponse<String> first = OptionsApiTests.send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		HttpResponse<String> next = OptionsApiTests.send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		assertThat(this.registry.device(0)).hasFailedWith("Xid 79");
		assertThat(next.statusCode()).isEqualTo(503);
		assertThat(next.body()).contains("Device failed").doesNotContain("Xid");
		assertThat(first.body()).doesNotContain("Xid");
		HttpResponse<String> pools = OptionsApiTests.send(this.port, "GET", "/api/pools", null);
		assertThat(pools.body()).contains("\"healthy\":false").doesNotContain("Xid");
		assertThat(this.registry).hasNothingLentAnywhere();
	}

}
