package dev.offload.sample.web;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients that trickle their bodies (a byte every 300 ms, never silent long enough for
 * Tomcat's connection timeout), more of them than there are admission places, do not make
 * other price requests fail: a body is read before admission, so they hold no place; once
 * the whole body's bound passed they get a 408 problem detail (or their connection
 * closed).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.price.max-in-flight=2", "sample.request-body-timeout=2s" })
@AutoConfigureOffload
class SlowBodyTests {

	static final int SLOW_CLIENTS = 4;

	@LocalServerPort
	int port;

	@Test
	void slowBodiesShouldNotMakeOtherPriceRequestsFailAndShouldBeAnswered408() throws Exception {
		List<Socket> sockets = new ArrayList<>();
		List<Thread> tricklers = new ArrayList<>();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger bytesSent = new AtomicInteger();
		try {
			for (int i = 0; i < SLOW_CLIENTS; i++) {
				Socket socket = new Socket("localhost", this.port);
				// A guard against a hang, not a timing.
				socket.setSoTimeout(60_000);
				sockets.add(socket);
				OutputStream out = socket.getOutputStream();
				out.write(("POST /api/options/price HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
						+ "Content-Length: 100000\r\n\r\n{\"options\":[")
					.getBytes(StandardCharsets.US_ASCII));
				out.flush();
				Thread trickler = new Thread(() -> trickle(out, stop, bytesSent));
				trickler.setDaemon(true);
				trickler.start();
				tricklers.add(trickler);
			}
			// Every slow client has sent a few bytes: its request is in the server.
			await().atMost(Duration.ofSeconds(60)).until(() -> bytesSent.get() >= 3 * SLOW_CLIENTS);
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				HttpResponse<String> response = OptionsApiTests.send(this.port, "POST", "/api/options/price",
						"{\"options\":[" + OptionsApiTests.option(90 + i) + "]}");
				statuses.add(response.statusCode());
			}
			assertThat(statuses).containsOnly(200);
			for (Socket socket : sockets) {
				String head;
				try {
					head = AdmissionTests.readHead(socket.getInputStream());
				}
				catch (SocketException ex) {
					// Reset: closed without an answer.
					head = "";
				}
				assertThat(head).satisfiesAnyOf((answer) -> assertThat(answer).startsWith("HTTP/1.1 408"),
						(answer) -> assertThat(answer).isEmpty());
			}
		}
		finally {
			stop.set(true);
			for (Socket socket : sockets) {
				socket.close();
			}
			for (Thread trickler : tricklers) {
				trickler.join(10_000);
			}
		}
	}

	private static void trickle(OutputStream out, AtomicBoolean stop, AtomicInteger bytesSent) {
		try {
			while (!stop.get()) {
				out.write(' ');
				out.flush();
				bytesSent.incrementAndGet();
				Thread.sleep(300);
			}
		}
		catch (IOException | InterruptedException ex) {
			// The server closed the connection, or the test ended.
		}
	}

}
