package dev.offload.sample.web;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Monte Carlo job's sessions are its tenant's, so that the device's streams and memory
 * are shared among tenants as the job queue's slots are: the session the job opens
 * carries the tenant the gateway's header named.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.tenants.header=X-Tenant-Id")
@AutoConfigureOffload
class MonteCarloTenantSessionTests {

	@LocalServerPort
	int port;

	@Autowired
	SessionTenants sessions;

	@Test
	void jobsSessionShouldBeItsTenants() throws Exception {
		HttpResponse<String> accepted = OptionsApiTests.http
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/api/options/monte-carlo"))
				.header("Content-Type", "application/json")
				.header("X-Tenant-Id", "acme-risk")
				.POST(HttpRequest.BodyPublishers.ofString(
						"{\"spot\":100,\"strike\":95,\"maturity\":1,\"rate\":0.03,\"volatility\":0.2,\"paths\":4096}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(accepted.statusCode()).isEqualTo(202);
		await().atMost(Duration.ofMinutes(2))
			.untilAsserted(() -> assertThat(this.sessions.tenants).contains("acme-risk"));
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Listener {

		@Bean
		SessionTenants sessionTenants() {
			return new SessionTenants();
		}

	}

	/**
	 * Records the tenant of every session opened.
	 */
	static class SessionTenants implements OffloadListener {

		final List<String> tenants = new CopyOnWriteArrayList<>();

		@Override
		public void sessionOpened(OffloadSession session) {
			this.tenants.add(String.valueOf(session.tenant()));
		}

	}

}
