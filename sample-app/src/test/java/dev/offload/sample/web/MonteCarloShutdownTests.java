package dev.offload.sample.web;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.offload.sample.OffloadSampleApplication;
import dev.offload.sample.pricing.MonteCarloRequest;
import dev.offload.sample.pricing.MonteCarloResult;
import dev.offload.sample.pricing.MonteCarloService;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * At shutdown, new Monte Carlo jobs are refused first (503 with {@code Retry-After}, on a
 * kept-alive connection still served while it drains), and a job accepted before that
 * which cannot finish within the shutdown's bounds (here a second each) ends
 * {@code FAILED} with the shutdown as its reason, not lost or left running. The
 * application runs in its own context, closed by the test; its simulations never end (but
 * the warm-up's), so no timing is involved.
 */
class MonteCarloShutdownTests {

	static final String LONG_JOB = "{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,"
			+ "\"paths\":67108864}";

	private static final Pattern JOB_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

	@Test
	void shutdownShouldRefuseNewJobsFirstAndEndAJobThatCannotFinishFailedWithTheShutdownAsItsReason() throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(OffloadSampleApplication.class,
				EndlessSimulations.class)
			.run("--spring.main.allow-bean-definition-overriding=true", "--server.port=0", "--management.server.port=0",
					"--offload.backend=host", "--server.tomcat.keep-alive-timeout=60s",
					"--sample.shutdown.keep-alive-drain=60s", "--spring.lifecycle.timeout-per-shutdown-phase=1s",
					"--offload.shutdown.await-termination=1s");
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		MonteCarloJobs jobs = context.getBean(MonteCarloJobs.class);
		KeepAliveDrain drain = context.getBean(KeepAliveDrain.class);
		CompletableFuture<Void> closed = null;
		String refused;
		UUID id;
		try {
			// On a connection of its own, closed after the answer: a kept-alive one (the
			// shared HttpClient's) would hold the drain below for its whole 60 s.
			String accepted = postOnce(port, "/api/options/monte-carlo", LONG_JOB);
			assertThat(accepted).startsWith("HTTP/1.1 202");
			Matcher jobId = JOB_ID.matcher(accepted);
			assertThat(jobId.find()).as(accepted).isTrue();
			id = UUID.fromString(jobId.group(1));
			try (Socket socket = new Socket("localhost", port)) {
				// A guard against a hang, not a timing.
				socket.setSoTimeout(60_000);
				OutputStream out = socket.getOutputStream();
				InputStream in = socket.getInputStream();
				out.write("GET /api/pools HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
				out.flush();
				skipResponse(in);
				closed = CompletableFuture.runAsync(context::close);
				await().atMost(Duration.ofSeconds(60)).until(drain::isDraining);
				byte[] job = LONG_JOB.getBytes(StandardCharsets.US_ASCII);
				out.write(("POST /api/options/monte-carlo HTTP/1.1\r\nHost: localhost\r\n"
						+ "Content-Type: application/json\r\nContent-Length: " + job.length + "\r\n\r\n")
					.getBytes(StandardCharsets.US_ASCII));
				out.write(job);
				out.flush();
				refused = AdmissionTests.readHead(in);
			}
		}
		finally {
			if (closed == null) {
				context.close();
			}
		}
		closed.get();
		assertThat(refused).startsWith("HTTP/1.1 503").containsIgnoringCase("Retry-After: 1");
		assertThat(jobs.find(id)).get().satisfies((status) -> {
			assertThat(status.status()).isEqualTo("FAILED");
			assertThat(status.error()).startsWith("The service shut down before the job finished");
		});
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class EndlessSimulations {

		@Bean
		MonteCarloService monteCarloService(OffloadTemplate template) {
			return new MonteCarloService(template) {

				@Override
				public CompletableFuture<MonteCarloResult> simulate(MonteCarloRequest request) {
					return (request.paths() == MonteCarloRequest.MIN_PATHS)
							? CompletableFuture.completedFuture(new MonteCarloResult(10, 0.01, 1024, 10, 0))
							: new CompletableFuture<>();
				}

			};
		}

	}

	/** Sends one request with {@code Connection: close}; returns the whole answer. */
	private static String postOnce(int port, String path, String body) throws Exception {
		try (Socket socket = new Socket("localhost", port)) {
			// A guard against a hang, not a timing.
			socket.setSoTimeout(60_000);
			byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
			OutputStream out = socket.getOutputStream();
			out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
					+ "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.write(bytes);
			out.flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
		}
	}

	private static void skipResponse(InputStream in) throws Exception {
		String head = AdmissionTests.readHead(in).toLowerCase();
		int at = head.indexOf("content-length: ");
		if (at >= 0) {
			in.readNBytes(Integer.parseInt(head.substring(at + 16, head.indexOf("\r\n", at)).trim()));
		}
		else {
			StringBuilder body = new StringBuilder();
			int b;
			while (!body.toString().endsWith("\r\n0\r\n\r\n") && (b = in.read()) >= 0) {
				body.append((char) b);
			}
		}
	}

}
