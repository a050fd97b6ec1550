package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class OffloadSessionBindingTests {

	private DeviceRegistry registry;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build()).build();
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void bindWhenNestedShouldRestoreEachPreviousSession() {
		try (OffloadSession outer = this.registry.openSession(); OffloadSession inner = this.registry.openSession()) {
			try (var outerBinding = OffloadSessionBinding.bind(outer)) {
				assertThat(OffloadSessionBinding.currentSession()).containsSame(outer);
				try (var innerBinding = OffloadSessionBinding.bind(inner)) {
					assertThat(OffloadSessionBinding.currentSession()).containsSame(inner);
					assertThat(innerBinding.previous()).isSameAs(outer);
					try (var suspended = OffloadSessionBinding.bind(null)) {
						assertThat(OffloadSessionBinding.currentSession()).isEmpty();
					}
					assertThat(OffloadSessionBinding.currentSession()).containsSame(inner);
				}
				assertThat(OffloadSessionBinding.currentSession()).containsSame(outer);
			}
		}
	}

	@Test
	void bindWhenSessionClosedShouldThrow() {
		OffloadSession session = this.registry.openSession();
		session.close();
		assertThatIllegalArgumentException().isThrownBy(() -> OffloadSessionBinding.bind(session))
			.withMessageContaining("is closed");
	}

	@Test
	void closeWhenOnAnotherThreadShouldThrowAndLeaveTheBinding() throws Exception {
		try (OffloadSession session = this.registry.openSession()) {
			var binding = OffloadSessionBinding.bind(session);
			CompletableFuture<Void> elsewhere = CompletableFuture.runAsync(binding::close);
			assertThatExceptionOfType(Exception.class).isThrownBy(elsewhere::join)
				.withRootCauseInstanceOf(IllegalStateException.class)
				.withMessageContaining("must be closed on the thread that opened it");
			assertThat(OffloadSessionBinding.currentSession()).containsSame(session);
			binding.close();
			binding.close();
		}
	}

	@Test
	void currentSessionWhenBoundOnAnotherThreadShouldBeEmptyHere() throws Exception {
		try (OffloadSession session = this.registry.openSession(); var binding = OffloadSessionBinding.bind(session)) {
			assertThat(CompletableFuture.supplyAsync(OffloadSessionBinding::currentSession).get()).isEmpty();
		}
	}

}
