package dev.offload.autoconfigure.availability;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * A {@link SpringBootTest} of an application on a random port with two host devices,
 * device 1's pool bounded at one stream with a long borrow timeout, and the health probes
 * of Spring Boot's defaults. Test classes add their own
 * {@code offload.health.readiness.*} properties.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(classes = ReadinessProbeWebTest.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "offload.backend=host", "offload.host.device-count=2",
				"offload.devices-config.1.stream-pool.initial-size=1",
				"offload.devices-config.1.stream-pool.max-size=1",
				"offload.devices-config.1.stream-pool.borrow-timeout=5m" })
@AutoConfigureRestTestClient
@interface ReadinessProbeWebTest {

	/**
	 * The application under test.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	class TestApplication {

	}

}
