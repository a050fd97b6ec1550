package dev.offload.sample.web;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.offload.sample.OffloadSampleApplication;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client reusing a kept-alive connection while the application shuts down: every
 * request it sends is answered, until an answer says {@code Connection: close}. (Without
 * the drain, Tomcat, once paused, closes the connection on the next request without
 * answering it.) Its connection closed, the drain ends with none left open: nothing of
 * the application's own (the startup warm-up's loopback requests) idles on a kept-alive
 * connection and holds it. (Tomcat's keep-alive timeout is longer than the drain here, so
 * a connection left idle would outlast the drain.) The application runs in its own
 * context, closed by the test.
 */
class KeepAliveShutdownTests {

	private static final int MAX_REQUESTS = 100_000;

	@Test
	void keptAliveConnectionWhenTheApplicationShutsDownShouldGetEveryRequestAnswered() throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(OffloadSampleApplication.class).run(
				"--server.port=0", "--management.server.port=0", "--offload.backend=host",
				"--server.tomcat.keep-alive-timeout=60s", "--sample.shutdown.keep-alive-drain=30s");
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		KeepAliveDrain drain = context.getBean(KeepAliveDrain.class);
		CompletableFuture<Void> closed = null;
		String last = "";
		int answered = 0;
		try (Socket socket = new Socket("localhost", port)) {
			// A guard against a hang, not a timing.
			socket.setSoTimeout(60_000);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			while (answered < MAX_REQUESTS && !last.toLowerCase().contains("connection: close")) {
				out.write("GET /api/pools HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
				out.flush();
				last = readResponse(in);
				assertThat(last).as("answer to request %d on the kept-alive connection", answered + 1)
					.startsWith("HTTP/1.1 ");
				answered++;
				if (closed == null) {
					closed = CompletableFuture.runAsync(context::close);
				}
			}
		}
		finally {
			if (closed == null) {
				context.close();
			}
		}
		closed.join();
		assertThat(last).containsIgnoringCase("Connection: close");
		assertThat(answered).isGreaterThan(1);
		assertThat(drain.closedEveryConnection()).as("every connection closed within the drain").isTrue();
	}

	/** Reads one response (head and body, of a Content-Length or chunked); "" at EOF. */
	private static String readResponse(InputStream in) throws Exception {
		String head = AdmissionTests.readHead(in);
		if (head.isEmpty()) {
			return head;
		}
		String lower = head.toLowerCase();
		int at = lower.indexOf("content-length: ");
		if (at >= 0) {
			int length = Integer.parseInt(lower.substring(at + 16, lower.indexOf("\r\n", at)).trim());
			in.readNBytes(length);
		}
		else if (lower.contains("transfer-encoding: chunked")) {
			StringBuilder body = new StringBuilder();
			int b;
			while (!body.toString().endsWith("\r\n0\r\n\r\n") && !body.toString().equals("0\r\n\r\n")
					&& (b = in.read()) >= 0) {
				body.append((char) b);
			}
		}
		return head;
	}

}
