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
 * Tests for shutdown with sessions in flight: new sessions are refused, open ones may
 * finish within the drain time, and what cannot finish is failed, never dropped.
 */
class GracefulShutdownTests {

	private static final AtomicInteger gateIds = new AtomicInteger(8000);

	private final int gateId = gateIds.incrementAndGet();

	private final CountDownLatch gate = TestKernels.gate(this.gateId);

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
		.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
		.build();

	private final Device device = this.registry.device(0);

	@AfterEach
	void close() {
		this.gate.countDown();
		this.registry.close(Duration.ZERO);
		// A registry closed with streams still lent leaves its backend open: stop its
		// workers here.
		this.registry.backend().close();
	}

	private void hold(OffloadSession session) {
		session.launch(this.device.loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), this.gateId);
	}

	@Test
	void closeShouldRefuseNewSessionsAndLetOpenOnesBorrowAndFinish() {
		OffloadSession open = this.device.openSession();
		CompletableFuture<Boolean> closed = CompletableFuture
			.supplyAsync(() -> this.registry.close(Duration.ofMinutes(1)));
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThatExceptionOfType(StreamPoolClosedException.class)
				.isThrownBy(this.device::openSession));
		assertThat(closed).isNotDone();
		open.fill(open.allocate(16), (byte) 1);
		CompletableFuture<Void> ended = open.closeAsync();
		assertThat(closed.join()).isTrue();
		// The future completes on the completion executor, just after the session ended.
		await().atMost(Duration.ofSeconds(30)).until(ended::isDone);
		assertThat(ended).isNotCompletedExceptionally();
		assertThat(this.device.streamPool().statistics().size()).isZero();
	}

	@Test
	void closeWhenWorkOutlivesTheDrainShouldFailPendingFuturesAndCompleteFinishedOnes() {
		OffloadSession finished = this.device.openSession();
		finished.fill(finished.allocate(16), (byte) 1);
		finished.synchronize();
		OffloadSession held = this.device.openSession();
		hold(held);
		CompletableFuture<Void> heldEnd = held.closeAsync();
		assertThat(this.registry.close(Duration.ofMillis(100))).isFalse();
		assertThat(heldEnd).isCompletedExceptionally();
		assertThatExceptionOfType(Exception.class).isThrownBy(heldEnd::join)
			.havingCause()
			.isInstanceOf(StreamPoolClosedException.class)
			.withMessageStartingWith("Session " + held.id() + " on device 0 was shut down before its work finished "
					+ "(shutdown waited");
		// A session still open after the drain and closed later completes normally: its
		// work is done.
		CompletableFuture<Void> finishedEnd = finished.closeAsync();
		assertThat(finishedEnd).isCompleted();
		assertThat(finishedEnd).isNotCompletedExceptionally();
		// The held stream is never destroyed under its running work.
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);
	}

	@Test
	void synchronizeWithADeadlineWhenTheDrainEndsShouldFailRatherThanWaitOn() {
		OffloadSession held = this.device.openSession(StreamPriority.NORMAL, Duration.ofMinutes(5));
		hold(held);
		CompletableFuture<Void> waiter = CompletableFuture.runAsync(held::synchronize);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.device.completions().pending() == 1);
		assertThat(this.registry.close(Duration.ofMillis(50))).isFalse();
		await().atMost(Duration.ofSeconds(30)).until(waiter::isDone);
		assertThatExceptionOfType(Exception.class).isThrownBy(waiter::join)
			.havingCause()
			.isInstanceOf(StreamPoolClosedException.class)
			.withMessageContaining("shut down before its work finished");
	}

	@Test
	void closeShouldKeepThePageLockedMemoryOfAHostBufferStillOpen() {
		HostBuffer buffer = this.device.allocateHost(64);
		buffer.putFloats(0, new float[] { 1, 2, 3 });
		assertThat(this.registry.close(Duration.ofMillis(100))).isFalse();
		assertThat(this.device.memoryStatistics().hostFrees()).isZero();
		assertThat(buffer.getFloats(0, new float[3])).containsExactly(1, 2, 3);
		buffer.close();
	}

	@Test
	void closeShouldWaitForAnOpenHostBufferAndFreeItsMemoryOnceItIsClosed() {
		HostBuffer buffer = this.device.allocateHost(64);
		buffer.putFloats(0, new float[] { 1, 2, 3 });
		CompletableFuture<Boolean> closed = CompletableFuture
			.supplyAsync(() -> this.registry.close(Duration.ofMinutes(1)));
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThatExceptionOfType(StreamPoolClosedException.class)
				.isThrownBy(this.device::openSession));
		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(30)).until(() -> !closed.isDone());
		assertThat(buffer.getFloats(0, new float[3])).containsExactly(1, 2, 3);
		buffer.close();
		assertThat(closed.join()).isTrue();
		assertThat(this.device.memoryStatistics().hostFrees()).isPositive();
	}

}
