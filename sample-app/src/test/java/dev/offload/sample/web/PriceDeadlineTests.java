package dev.offload.sample.web;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * The price deadline starts when a request arrives, before its body is read: with a
 * deadline of a nanosecond, reading and validating the body use it up, and the request is
 * refused with 503 and {@code Retry-After} without asking for a stream.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.price.timeout=1ns")
@AutoConfigureOffload
class PriceDeadlineTests {

	@LocalServerPort
	int port;

	@Autowired
	DeviceRegistry registry;

	@Test
	void priceWhenTheDeadlinePassedWhileTheBodyWasReadShouldBeA503WithoutBorrowing() throws Exception {
		long borrowsBefore = this.registry.device(0).streamPool().statistics().borrows();
		HttpResponse<String> response = OptionsApiTests.send(this.port, "POST", "/api/options/price",
				"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Retry-After")).hasValue(ApiErrors.RETRY_AFTER_SECONDS);
		assertThat(this.registry.device(0).streamPool().statistics().borrows()).isEqualTo(borrowsBefore);
	}

}
