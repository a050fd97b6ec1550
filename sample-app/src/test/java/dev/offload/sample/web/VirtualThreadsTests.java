package dev.offload.sample.web;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import dev.offload.DeviceRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app with {@code spring.threads.virtual.enabled=true}: Tomcat serves each
 * request on a virtual thread, the price requests' GPU waits park those threads, and no
 * pinned virtual thread is recorded in Offload. Runs on a Java 21+ runtime (the build's
 * java25-test execution); on Java 17 Spring Boot ignores the property.
 */
@Tag("java21")
@EnabledForJreRange(min = JRE.JAVA_21,
		disabledReason = "Virtual threads need Java 21+; the build runs this test on the JDK 22+ it finds (README)")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		// Neither admission nor deadlines are under test: every one of the 16 concurrent
		// clients is let in, and a busy machine's slow requests are not answered 503.
		properties = { "spring.threads.virtual.enabled=true", "sample.price.max-in-flight=64",
				"sample.price.admission-wait=1m", "sample.price.timeout=1m" })
class VirtualThreadsTests {

	@LocalServerPort
	int port;

	@Autowired
	WebServerApplicationContext context;

	@Autowired
	DeviceRegistry registry;

	@Test
	void requestsWhenOnVirtualThreadsShouldBeServedWithoutPinningInOffload(@TempDir Path directory) throws Exception {
		Connector connector = ((TomcatWebServer) this.context.getWebServer()).getTomcat().getConnector();
		assertThat(connector.getProtocolHandler().getExecutor().getClass().getSimpleName())
			.isEqualTo("VirtualThreadExecutor");
		// Each path loads its classes before the recording, under the same concurrency: a
		// first class loading under contention pins (some paths, such as a lock's second
		// reader, run only when requests overlap, which one request alone never loads).
		assertThat(burst(32)).extracting(HttpResponse::statusCode).containsOnly(200);
		Path file = directory.resolve("pinned.jfr");
		List<HttpResponse<String>> responses;
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			responses = burst(200);
			recording.stop();
			recording.dump(file);
		}
		assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(200);
		List<String> pinnedInOffload = RecordingFile.readAllEvents(file)
			.stream()
			.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
			.filter(VirtualThreadsTests::passesThroughOffload)
			.filter((event) -> !inJvmLinkage(event))
			.map(RecordedEvent::toString)
			.toList();
		assertThat(pinnedInOffload).isEmpty();
		assertThat(this.registry.device(0).streamPool().inUse()).isZero();
	}

	/**
	 * Sends {@code count} one-option price requests from 16 client threads at once.
	 */
	private List<HttpResponse<String>> burst(int count) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(16);
		try {
			List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				double spot = 80 + (i % 40);
				sent.add(CompletableFuture.supplyAsync(() -> price(spot), clients));
			}
			List<HttpResponse<String>> responses = new ArrayList<>();
			for (CompletableFuture<HttpResponse<String>> each : sent) {
				responses.add(each.get(1, TimeUnit.MINUTES));
			}
			return responses;
		}
		finally {
			clients.shutdownNow();
		}
	}

	private HttpResponse<String> price(double spot) {
		try {
			return OptionsApiTests.send(this.port, "POST", "/api/options/price",
					"{\"options\":[" + OptionsApiTests.option(spot) + "]}");
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Whether the pin happened while the JVM linked a call site, loaded a class or ran a
	 * class initializer: a VM frame sits below the parking thread there whatever code
	 * triggered it (a call site linked again after a collection cleared the JDK's weak
	 * method-type cache parks on that cache's lock), so it is not Offload's doing.
	 */
	private static boolean inJvmLinkage(RecordedEvent event) {
		return event.getStackTrace().getFrames().stream().anyMatch((frame) -> {
			String type = frame.getMethod().getType().getName();
			return type.equals("java.lang.invoke.MethodHandleNatives") || type.equals("java.lang.ClassLoader")
					|| type.startsWith("jdk.internal.loader.") || frame.getMethod().getName().equals("<clinit>");
		});
	}

	private static boolean passesThroughOffload(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.anyMatch((frame) -> frame.getMethod().getType().getName().startsWith("dev.offload."));
	}

}
