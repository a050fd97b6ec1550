package dev.offload.autoconfigure;

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
import org.springframework.context.annotation.Import;

/**
 * A {@link SpringBootTest} of an application on a random port with
 * {@link HostDeviceRegistryConfiguration two host devices}, the {@code streampools},
 * {@code health} and {@code prometheus} endpoints exposed, health details shown and leak
 * detection on (with a threshold no test reaches). Every test class so annotated shares
 * one context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(classes = ObservabilityWebTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=streampools,health,prometheus",
				"management.endpoint.health.show-details=always", "offload.leak-detection-threshold=10m" })
@AutoConfigureRestTestClient
public @interface ObservabilityWebTests {

	/**
	 * The application under test.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(HostDeviceRegistryConfiguration.class)
	class TestApplication {

	}

}
