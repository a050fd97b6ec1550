package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.offload.test.autoconfigure.AutoConfigureOffload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A price request that finds every place taken waits for one, up to
 * {@code sample.price.admission-wait}: a place freed while it waits admits it, so a burst
 * of short requests is priced rather than refused.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.price.max-in-flight=1", "sample.price.admission-wait=30s", "sample.price.timeout=60s" })
@AutoConfigureOffload
class AdmissionWaitTests {

	@LocalServerPort
	int port;

	@Autowired
	PriceAdmission admission;

	@Test
	void priceWhenAPlaceIsFreedWhileItWaitsShouldBeAdmittedAndPriced() throws Exception {
		int taken = this.admission.drain();
		CompletableFuture<HttpResponse<String>> response = CompletableFuture.supplyAsync(() -> {
			try {
				return OptionsApiTests.send(this.port, "POST", "/api/options/price",
						"{\"options\":[" + OptionsApiTests.option(100) + "]}");
			}
			catch (Exception ex) {
				throw new CompletionException(ex);
			}
		});
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> this.admission.waiting() == 1);
		}
		finally {
			this.admission.release(taken);
		}
		assertThat(taken).isEqualTo(1);
		assertThat(response.get().statusCode()).isEqualTo(200);
		assertThat(this.admission.waiting()).isZero();
	}

}
