package dev.offload.test;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.test.kernel.Gate;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OffloadAssertionsTests {

	private DeviceRegistry registry;

	private Device device;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.build();
		this.device = this.registry.device(0);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void aCancelledFutureFailsWithItsCancellationAndDoesNotComplete() {
		CompletableFuture<String> cancelled = new CompletableFuture<>();
		cancelled.cancel(true);
		OffloadAssertions.assertThat(cancelled).failsWith(CancellationException.class);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> OffloadAssertions.assertThat(cancelled).completesWithin(Duration.ofSeconds(1)))
			.withMessageContaining("it was cancelled");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> OffloadAssertions.assertThat(cancelled).failsWith(IllegalArgumentException.class))
			.withMessageContaining("it was cancelled");
	}

	@Test
	void streamPoolAssertWhenCountsMatchShouldPass() throws Exception {
		try (Gate gate = Gate.create(); OffloadSession session = this.device.openSession()) {
			gate.launch(session);
			assertThat(gate.awaitStarted(Duration.ofSeconds(30))).isTrue();
			OffloadAssertions.assertThat(this.device.streamPool())
				.hasInUse(1)
				.hasIdle(1)
				.hasWaiting(0)
				.hasDiscarded(0)
				.hasTimeouts(0);
			gate.release();
		}
		OffloadAssertions.assertThat(this.device.streamPool()).hasNothingLent().hasInUse(0);
	}

	@Test
	void streamPoolAssertWhenCountDiffersShouldShowStatistics() {
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasInUse(3))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("Expected device 0's stream pool to have 3 streams in use but it has 0")
			.hasMessageContaining("StreamPoolStatistics[deviceId=0, size=0, inUse=0, idle=0, peakInUse=0");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasIdle(5))
			.hasMessageContaining("to have 5 idle streams but it has 0");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasWaiting(1))
			.hasMessageContaining("to have 1 waiting borrowers but it has 0");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasDiscarded(1))
			.hasMessageContaining("to have 1 discarded streams but it has 0");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasTimeouts(2))
			.hasMessageContaining("to have 2 borrow timeouts but it has 0");
	}

	@Test
	void hasNothingLentWhenAStreamIsHeldShouldFailNamingTheCount() throws Exception {
		try (Gate gate = Gate.create(); OffloadSession session = this.device.openSession()) {
			gate.launch(session);
			assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device.streamPool()).hasNothingLent())
				.hasMessageContaining(
						"Expected device 0's stream pool to lend nothing but it has 1 in use and 0 waiting")
				.hasMessageContaining("inUse=1");
			assertThatThrownBy(() -> OffloadAssertions.assertThat(this.registry).hasNothingLentAnywhere())
				.hasMessageContaining("Expected no device to lend anything but these do:")
				.hasMessageContaining("device 0: 1 open session(s)")
				.hasMessageNotContaining("device 1:");
			gate.release();
		}
		OffloadAssertions.assertThat(this.registry).hasNothingLentAnywhere().allHealthy();
	}

	@Test
	void deviceAssertWhenDeviceFailedStickyShouldReportTheFailure() {
		OffloadSession session = this.device.openSession();
		session.launch(TestKernels.STICKY_FAULT, LaunchConfig.of(1, 1));
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::close);
		OffloadAssertions.assertThat(this.device)
			.hasFailedWith(BackendException.class)
			.hasFailedWith("HOST_ERROR_ILLEGAL_ADDRESS");
		OffloadAssertions.assertThat(this.registry.device(1)).isHealthy();
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device).isHealthy())
			.hasMessageContaining("Expected device 0 to be healthy but it failed with")
			.hasMessageContaining("HOST_ERROR_ILLEGAL_ADDRESS");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device).hasFailedWith(IllegalStateException.class))
			.hasMessageContaining(
					"Expected device 0 to have failed with java.lang.IllegalStateException but it failed with");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device).hasFailedWith("out of memory"))
			.hasMessageContaining("to have failed with a message containing \"out of memory\"");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.registry).allHealthy())
			.hasMessageContaining("Expected all devices to be healthy but these failed:")
			.hasMessageContaining("device 0:")
			.hasMessageNotContaining("device 1:");
	}

	@Test
	void deviceAssertWhenDeviceIsHealthyShouldFailHasFailedWith() {
		assertThatThrownBy(() -> OffloadAssertions.assertThat(this.device).hasFailedWith(BackendException.class))
			.hasMessageContaining("Expected device 0 to have failed but it is healthy")
			.hasMessageContaining("StreamPoolStatistics[deviceId=0");
	}

	@Test
	void sessionAssertShouldFollowTheSessionsLife() {
		OffloadSession session = this.device.openSession();
		OffloadAssertions.assertThat(session).isOpen();
		assertThatThrownBy(() -> OffloadAssertions.assertThat(session).hasStream())
			.hasMessageContaining("to hold a stream but it holds none");
		session.launch(TestKernels.FAIL, LaunchConfig.of(1, 1), 4);
		OffloadAssertions.assertThat(session).isOpen().hasStream();
		assertThatThrownBy(() -> OffloadAssertions.assertThat(session).hasFailed())
			.hasMessageContaining("to have failed but it has no failure");
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::synchronize)
			.withMessageContaining("kernel failed on purpose 4");
		OffloadAssertions.assertThat(session).hasFailed();
		session.close();
		assertThatThrownBy(() -> OffloadAssertions.assertThat(session).isOpen())
			.hasMessageContaining("to be open but it is closed");
	}

	@Test
	void futureAssertShouldReportHowTheFutureEnded() {
		OffloadAssertions.assertThat(CompletableFuture.completedFuture(1)).completesWithin(Duration.ofSeconds(1));
		OffloadAssertions.assertThat(CompletableFuture.failedFuture(new IllegalStateException("boom")))
			.failsWith(IllegalStateException.class);
		assertThatThrownBy(() -> OffloadAssertions.assertThat(new CompletableFuture<>()).completesWithin(Duration.ZERO))
			.hasMessageContaining("Expected the future to complete within PT0S but it is still running");
		assertThatThrownBy(
				() -> OffloadAssertions.assertThat(CompletableFuture.failedFuture(new IllegalStateException("boom")))
					.completesWithin(Duration.ofSeconds(1)))
			.hasMessageContaining("but it failed with java.lang.IllegalStateException: boom");
		assertThatThrownBy(() -> OffloadAssertions.assertThat(CompletableFuture.completedFuture(7))
			.failsWith(IllegalStateException.class))
			.hasMessageContaining("to fail with java.lang.IllegalStateException but it completed with 7");
		assertThatThrownBy(
				() -> OffloadAssertions.assertThat(CompletableFuture.failedFuture(new ArithmeticException("x")))
					.failsWith(IllegalStateException.class))
			.hasMessageContaining("but it failed with java.lang.ArithmeticException: x");
	}

}
