package dev.offload.sample.web;

import java.io.InputStream;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * Price requests are admitted once their bodies have arrived, before they are parsed:
 * with every permit taken (as when the lane is saturated), a request is refused with 503
 * and {@code Retry-After}, and nothing reaches the device. (A body that does not arrive
 * holds no permit: {@link SlowBodyTests}.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.price.max-in-flight=2")
@AutoConfigureOffload
class AdmissionTests {

	@LocalServerPort
	int port;

	@Autowired
	PriceAdmission admission;

	@Autowired
	DeviceRegistry registry;

	@Test
	void priceWhenEveryPermitIsTakenShouldBeRefusedWithoutReachingTheDevice() throws Exception {
		long borrowsBefore = this.registry.device(0).streamPool().statistics().borrows();
		int taken = this.admission.drain();
		HttpResponse<String> refused;
		try {
			refused = OptionsApiTests.send(this.port, "POST", "/api/options/price",
					"{\"options\":[" + OptionsApiTests.option(100) + "]}");
		}
		finally {
			this.admission.release(taken);
		}
		assertThat(taken).isEqualTo(2);
		assertThat(refused.statusCode()).isEqualTo(503);
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(this.registry.device(0).streamPool().statistics().borrows()).isEqualTo(borrowsBefore);
		assertThat(OptionsApiTests
			.send(this.port, "POST", "/api/options/price", "{\"options\":[" + OptionsApiTests.option(100) + "]}")
			.statusCode()).isEqualTo(200);
		assertThat(this.registry).hasNothingLentAnywhere();
	}

	static String readHead(InputStream in) throws Exception {
		StringBuilder head = new StringBuilder();
		int b;
		while ((b = in.read()) >= 0) {
			head.append((char) b);
			if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
				break;
			}
		}
		return head.toString();
	}

}
