package dev.offload.template;

import java.lang.reflect.Method;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadAttributes}: the timeout of {@link Offload @Offload} and its
 * use by the invoker.
 */
class OffloadAttributesTests {

	@Test
	void parseTimeoutShouldAcceptUnitsAndIsoDurations() {
		assertThat(OffloadAttributes.parseTimeout("500ms")).isEqualTo(Duration.ofMillis(500));
		assertThat(OffloadAttributes.parseTimeout(" 2s ")).isEqualTo(Duration.ofSeconds(2));
		assertThat(OffloadAttributes.parseTimeout("1m")).isEqualTo(Duration.ofMinutes(1));
		assertThat(OffloadAttributes.parseTimeout("250us")).isEqualTo(Duration.ofNanos(250_000));
		assertThat(OffloadAttributes.parseTimeout("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
		assertThat(OffloadAttributes.parseTimeout("")).isNull();
	}

	@Test
	void parseTimeoutWhenNotAPositiveDurationShouldNameTheValue() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> OffloadAttributes.parseTimeout("2 seconds"))
			.withMessageStartingWith("@Offload timeout '2 seconds' is not a positive duration; use a number with a "
					+ "unit (ns, us, ms, s, m, h, d) such as 500ms or 2s");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> OffloadAttributes.parseTimeout("0s"))
			.withMessageContaining("'0s'");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> OffloadAttributes.parseTimeout("PT-1S"))
			.withMessageContaining("'PT-1S'");
	}

	@Test
	void ofShouldCarryTheAnnotationsTimeout() throws Exception {
		Method method = Annotated.class.getDeclaredMethod("bounded");
		OffloadAttributes attributes = OffloadAttributes.of(method.getAnnotation(Offload.class));
		assertThat(attributes.timeout()).isEqualTo(Duration.ofSeconds(2));
		assertThat(attributes.priority()).isEqualTo(StreamPriority.HIGH);
		Method unbounded = Annotated.class.getDeclaredMethod("unbounded");
		assertThat(OffloadAttributes.of(unbounded.getAnnotation(Offload.class)).timeout()).isNull();
	}

	@Test
	void invokeShouldOpenItsSessionWithTheTimeoutAndJoinedSessionsKeepTheirOwn() throws Throwable {
		try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build())
			.sessionTimeout(Duration.ofSeconds(9))
			.build()) {
			OffloadInvoker invoker = new OffloadInvoker(registry);
			OffloadAttributes bounded = OffloadAttributes.DEFAULTS.withTimeout(Duration.ofMillis(300));
			Duration own = invoker.invoke(bounded, () -> OffloadSessionBinding.get().timeout());
			assertThat(own).isEqualTo(Duration.ofMillis(300));
			Duration joined = invoker.invoke(OffloadAttributes.DEFAULTS,
					() -> invoker.invoke(bounded, () -> OffloadSessionBinding.get().timeout()));
			assertThat(joined).isEqualTo(Duration.ofSeconds(9));
			OffloadSession[] opened = new OffloadSession[1];
			invoker.invoke(OffloadAttributes.DEFAULTS, () -> opened[0] = OffloadSessionBinding.get());
			assertThat(opened[0].timeout()).isEqualTo(Duration.ofSeconds(9));
		}
	}

	static class Annotated {

		@Offload(timeout = "2s", priority = StreamPriority.HIGH)
		void bounded() {
		}

		@Offload
		void unbounded() {
		}

	}

}
