package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for session deadlines: a caller's waits for a stream and for the session's work
 * end with a {@link SessionTimeoutException}, and the stream is not lent again before its
 * work is done.
 */
class SessionTimeoutTests {

	private static final AtomicInteger gateIds = new AtomicInteger(7000);

	private static final Duration SHORT = Duration.ofMillis(100);

	private DeviceRegistry registry;

	private final CountDownLatch gate = TestKernels.gate(gateIds.incrementAndGet());

	private final int gateId = gateIds.get();

	@AfterEach
	void close() {
		this.gate.countDown();
		if (this.registry != null) {
			this.registry.close(Duration.ofSeconds(30));
			this.registry.backend().close();
		}
	}

	/**
	 * A device whose pool holds one stream, so that a second borrow shows whether the
	 * stream is lent again.
	 */
	private Device oneStreamDevice(Duration borrowTimeout) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(1, 1, borrowTimeout))
			.build();
		Device device = this.registry.device(0);
		device.loadModule(TestKernels.MODULE);
		return device;
	}

	private void hold(OffloadSession session) {
		session.launch(session.device().loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1),
				this.gateId);
	}

	@Test
	void synchronizeWhenWorkOutlivesTheDeadlineShouldThrowAndLendTheStreamOnlyAfterTheWorkEnds() {
		Device device = oneStreamDevice(Duration.ofMillis(50));
		OffloadSession session = device.openSession(StreamPriority.NORMAL, SHORT);
		hold(session);
		assertThatExceptionOfType(SessionTimeoutException.class).isThrownBy(session::synchronize)
			.withMessageContaining("Session " + session.id() + " on device 0")
			.withMessageContaining("its work (synchronize)")
			.withMessageContaining("session timeout 100 ms")
			.satisfies((ex) -> assertThat(ex.getTimeout()).isEqualTo(SHORT));
		assertThat(session.isClosed()).isTrue();
		session.close();
		assertThat(device.streamPool().statistics().sessionTimeouts()).isEqualTo(1);
		assertThat(device.streamPool().inUse()).isEqualTo(1);
		assertThatExceptionOfType(StreamBorrowTimeoutException.class).isThrownBy(() -> {
			try (OffloadSession next = device.openSession()) {
				next.fill(next.allocate(8), (byte) 1);
			}
		});
		this.gate.countDown();
		await().atMost(Duration.ofSeconds(30)).until(() -> device.streamPool().inUse() == 0);
		assertThat(device.streamPool().statistics().discarded()).isZero();
		assertThat(device.activeSessions()).isZero();
		try (OffloadSession next = device.openSession()) {
			next.fill(next.allocate(8), (byte) 1);
		}
	}

	@Test
	void closeWhenWorkOutlivesTheDeadlineShouldThrowAndCompleteTheSessionsFutureWhenTheWorkEnds() {
		Device device = oneStreamDevice(Duration.ofSeconds(30));
		OffloadSession session = device.openSession(StreamPriority.NORMAL, SHORT);
		hold(session);
		assertThatExceptionOfType(SessionTimeoutException.class).isThrownBy(session::close)
			.withMessageContaining("its work (close)");
		CompletableFuture<Void> ended = session.closeAsync();
		assertThat(ended).isNotDone();
		this.gate.countDown();
		await().atMost(Duration.ofSeconds(30)).until(ended::isDone);
		assertThat(ended).isCompletedExceptionally();
		assertThat(device.streamPool().inUse()).isZero();
	}

	@Test
	void borrowWhenThePoolStaysFullPastTheDeadlineShouldThrowSessionTimeoutNotBorrowTimeout() {
		Device device = oneStreamDevice(Duration.ofMinutes(1));
		try (OffloadSession holder = device.openSession()) {
			hold(holder);
			OffloadSession late = device.openSession(StreamPriority.NORMAL, SHORT);
			assertThatExceptionOfType(SessionTimeoutException.class)
				.isThrownBy(() -> late.fill(late.allocate(8), (byte) 1))
				.withMessageContaining("for a stream");
			late.close();
			this.gate.countDown();
		}
		StreamPoolStatistics statistics = device.streamPool().statistics();
		assertThat(statistics.sessionTimeouts()).isEqualTo(1);
		assertThat(statistics.timeouts()).isZero();
	}

	@Test
	void synchronizeWithinTheDeadlineShouldWaitForTheWorkAndReportItsFailure() {
		Device device = oneStreamDevice(Duration.ofSeconds(30));
		try (OffloadSession session = device.openSession(StreamPriority.NORMAL, Duration.ofMinutes(1))) {
			hold(session);
			CompletableFuture.runAsync(() -> {
				TestKernels.await(TestKernels.started(this.gateId));
				this.gate.countDown();
			});
			session.synchronize();
			assertThat(this.gate.getCount()).isZero();
		}
		OffloadSession failing = device.openSession(StreamPriority.NORMAL, Duration.ofMinutes(1));
		failing.launch(device.loadModule(TestKernels.MODULE).kernel("fail"), LaunchConfig.of(1, 1), 3);
		assertThatExceptionOfType(BackendException.class).isThrownBy(failing::synchronize)
			.withMessageContaining("kernel failed on purpose 3");
		failing.close();
		assertThat(device.streamPool().statistics().discarded()).isEqualTo(1);
		assertThat(device.streamPool().statistics().sessionTimeouts()).isZero();
	}

	@Test
	void sessionsOpenedWithoutATimeoutShouldGetTheRegistrysDefault() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().build())
			.sessionTimeout(Duration.ofSeconds(3))
			.build();
		try (OffloadSession plain = this.registry.openSession();
				OffloadSession own = this.registry.openSession(
						SessionOptions.DEFAULTS.withTimeout(SHORT).withPriority(StreamPriority.HIGH).withDevice(0))) {
			assertThat(plain.timeout()).isEqualTo(Duration.ofSeconds(3));
			assertThat(own.timeout()).isEqualTo(SHORT);
			assertThat(own.priority()).isEqualTo(StreamPriority.HIGH);
		}
	}

	@Test
	void timeoutsThatAreNotPositiveShouldBeRejectedNamingTheValue() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> SessionOptions.DEFAULTS.withTimeout(Duration.ZERO))
			.withMessage("timeout must be positive (or null for none), was PT0S");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(
					() -> DeviceRegistry.builder(HostBackend.builder().build()).sessionTimeout(Duration.ofSeconds(-1)))
			.withMessageContaining("sessionTimeout must be positive");
	}

}
