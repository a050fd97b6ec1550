package dev.offload.sample.web;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.test.context.SpringBootTest;

import dev.offload.test.autoconfigure.AutoConfigureOffload;

/**
 * {@link SlowBodyTests} with requests served on virtual threads.
 */
@Tag("java21")
@EnabledForJreRange(min = JRE.JAVA_21,
		disabledReason = "Virtual threads need Java 21+; the build runs this test on the JDK 22+ it finds (README)")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.threads.virtual.enabled=true", "sample.price.max-in-flight=2",
				"sample.request-body-timeout=2s" })
@AutoConfigureOffload
class SlowBodyVirtualThreadsTests extends SlowBodyTests {

}
