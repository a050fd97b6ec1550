package dev.offload.sample.web;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.DeviceRegistry;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static dev.offload.test.OffloadAssertions.assertThat;

/**
 * Price requests are admitted before their bodies are read: with every permit taken (as
 * when the lane is saturated), a request is refused with 503 and {@code Retry-After}
 * while its body has not even arrived, and nothing reaches the device.
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
	void priceWhenEveryPermitIsTakenShouldBeRefusedBeforeItsBodyArrives() throws Exception {
		long borrowsBefore = this.registry.device(0).streamPool().statistics().borrows();
		int taken = this.admission.drain();
		String head;
		try (Socket socket = new Socket("localhost", this.port)) {
			// A guard against a hang, not a timing: the answer must come while the body
			// is incomplete, whenever that is.
			socket.setSoTimeout(60_000);
			OutputStream out = socket.getOutputStream();
			out.write(("POST /api/options/price HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
					+ "Content-Length: 100000\r\n\r\n{\"options\":[")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			head = readHead(socket.getInputStream());
		}
		finally {
			this.admission.release(taken);
		}
		assertThat(taken).isEqualTo(2);
		assertThat(head).startsWith("HTTP/1.1 503").containsIgnoringCase("Retry-After: 1");
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
