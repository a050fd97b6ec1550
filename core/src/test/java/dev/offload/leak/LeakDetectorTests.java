package dev.offload.leak;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.TestKernels;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeakDetector}.
 */
class LeakDetectorTests {

	private static final Duration SHORT = Duration.ofMillis(50);

	private static final Duration ROOMY = Duration.ofSeconds(1);

	private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

	private PrintStream originalErr;

	private LeakDetector detector;

	private DeviceRegistry registry;

	@BeforeEach
	void captureStandardError() {
		this.originalErr = System.err;
		// slf4j-simple looks System.err up on every message, so its output lands here.
		System.setErr(new PrintStream(new Tee(this.captured, this.originalErr), true, StandardCharsets.UTF_8));
	}

	@AfterEach
	void closeAndRestore() {
		if (this.registry != null) {
			this.registry.close();
		}
		if (this.detector != null) {
			this.detector.close();
		}
		System.setErr(this.originalErr);
	}

	@Test
	void sessionWhenOpenLongerThanThresholdShouldWarnOnceWithOpenersStackTrace() {
		start(SHORT, 1);
		OffloadSession session = this.registry.openSession(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) == 1);
		session.close();
		await().atMost(Duration.ofSeconds(10)).until(() -> output().contains("was closed after"));
		String output = output();
		assertThat(output).containsOnlyOnce("it may have leaked")
			.contains("WARN")
			.contains("Session " + session.id() + " on device 0 (Host device 0) has been open for more than 50 ms")
			.contains("java.lang.Throwable: Session opened here")
			.contains("at dev.offload.Device.openSession")
			.contains("at dev.offload.leak.LeakDetectorTests.sessionWhenOpenLongerThanThresholdShouldWarnOnce")
			.doesNotContain("at dev.offload.leak.LeakDetector.sessionOpened");
	}

	@Test
	void leakedSessionWhenClosedLaterShouldLogInfoWithItsDuration() {
		start(SHORT, 1);
		OffloadSession session = this.registry.openSession(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.openLeakedSessions(0) == 1);
		session.close();
		await().atMost(Duration.ofSeconds(10)).until(() -> output().contains("was closed after"));
		assertThat(output()).contains("INFO")
			.containsPattern("Session " + session.id()
					+ " on device 0 \\(Host device 0\\), reported as a possible leak, was closed after \\d+ ms");
		assertThat(this.detector.openLeakedSessions(0)).isZero();
		assertThat(this.detector.leakedSessions(0)).isOne();
	}

	@Test
	void sessionWhenClosedBeforeThresholdShouldNotBeReported() {
		start(Duration.ofMinutes(5), 1);
		try (OffloadSession session = this.registry.openSession(0)) {
			session.allocate(16);
		}
		assertThat(this.detector.leakedSessions(0)).isZero();
		assertThat(this.detector.openLeakedSessions(0)).isZero();
		assertThat(output()).doesNotContain("may have leaked");
	}

	@Test
	void leakedSessionsWhenSeveralDevicesShouldBeCountedPerDevice() {
		start(SHORT, 2);
		OffloadSession first = this.registry.openSession(1);
		OffloadSession second = this.registry.openSession(1);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(1) == 2);
		assertThat(this.detector.leakedSessions(0)).isZero();
		first.close();
		second.close();
		// The thread survives its reports: a later leak is reported too.
		OffloadSession third = this.registry.openSession(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) == 1);
		third.close();
	}

	@Test
	void detectorWhenEnabledShouldRunOneNamedDaemonThread() {
		start(SHORT, 1);
		OffloadSession session = this.registry.openSession(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) == 1);
		session.close();
		assertThat(Thread.getAllStackTraces().keySet())
			.filteredOn((thread) -> thread.getName().equals(LeakDetector.THREAD_NAME) && thread.isAlive())
			.isNotEmpty()
			.allMatch(Thread::isDaemon);
	}

	@Test
	void detectorWhenThresholdIsZeroShouldBeDisabled() {
		start(Duration.ZERO, 1);
		try (OffloadSession session = this.registry.openSession(0)) {
			session.allocate(16);
		}
		assertThat(this.detector.isEnabled()).isFalse();
		assertThat(this.detector.leakedSessions(0)).isZero();
	}

	@Test
	void detectorWhenThresholdIsNegativeShouldThrow() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeakDetector(Duration.ofMillis(-1)))
			.withMessage("leakDetectionThreshold must be at least 0, was PT-0.001S");
	}

	@Test
	void detectorWhenClosedShouldStopWatching() {
		start(SHORT, 1);
		this.detector.close();
		OffloadSession session = this.registry.openSession(0);
		session.close();
		assertThat(this.detector.leakedSessions(0)).isZero();
	}

	@Test
	void sessionWhenClosedButItsWorkIsStillQueuedShouldNotBeReported() {
		// Roomier than SHORT: the session must be closed before its check runs.
		start(ROOMY, 1);
		this.registry.device(0).loadModule(TestKernels.MODULE);
		// Above the gate ids of core's other tests.
		int gate = 2_000_001;
		CountDownLatch held = TestKernels.gate(gate);
		try {
			OffloadSession closedEarly = this.registry.openSession(0);
			closedEarly.launch(closedEarly.device().loadModule(TestKernels.MODULE).kernel("hold"),
					LaunchConfig.of(1, 1), gate);
			closedEarly.closeAsync();
			try (OffloadSession leaked = this.registry.openSession(0)) {
				// The checks run in the order of their deadlines: once the later session
				// is reported, the earlier one's check has run too.
				await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) >= 1);
				assertThat(this.detector.leakedSessions(0)).isOne();
				assertThat(this.detector.openLeakedSessions(0)).isOne();
				assertThat(output()).contains("Session " + leaked.id() + " on device 0")
					.doesNotContain("Session " + closedEarly.id() + " on device 0");
			}
		}
		finally {
			held.countDown();
		}
	}

	@Test
	void sessionWhenItsWorkIsStillAwaitedShouldNotBeReportedUntilItIsForgotten() {
		// Roomier than SHORT: the work must be awaited before the session's check runs.
		start(ROOMY, 1);
		this.registry.device(0).loadModule(TestKernels.MODULE);
		// Above the gate ids of core's other tests.
		int gate = 2_000_002;
		CountDownLatch held = TestKernels.gate(gate);
		// Resources close in reverse: the gate opens before the sessions close.
		try (OffloadSession busy = this.registry.openSession(0);
				OffloadSession leaked = this.registry.openSession(0);
				Release release = held::countDown) {
			busy.launch(busy.device().loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), gate);
			CompletableFuture<Void> done = busy.whenDone();
			// The checks run in the order of their deadlines: once the later session is
			// reported, the earlier one's check has run too.
			await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) >= 1);
			assertThat(this.detector.leakedSessions(0)).isOne();
			assertThat(output()).contains("Session " + leaked.id() + " on device 0")
				.doesNotContain("Session " + busy.id() + " on device 0");
			held.countDown();
			done.join();
			// Its work done and nobody waiting, the session left open is a leak after
			// all.
			await().atMost(Duration.ofSeconds(10)).until(() -> this.detector.leakedSessions(0) == 2);
			assertThat(output()).contains("Session " + busy.id() + " on device 0");
		}
	}

	private interface Release extends AutoCloseable {

		@Override
		void close();

	}

	private void start(Duration threshold, int devices) {
		this.detector = new LeakDetector(threshold);
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(devices).workersPerDevice(2).build())
			.listener(this.detector)
			.build();
	}

	private String output() {
		return this.captured.toString(StandardCharsets.UTF_8);
	}

	/**
	 * Writes to the capture and to the original stream.
	 */
	private static final class Tee extends OutputStream {

		private final ByteArrayOutputStream capture;

		private final PrintStream original;

		Tee(ByteArrayOutputStream capture, PrintStream original) {
			this.capture = capture;
			this.original = original;
		}

		@Override
		public synchronized void write(int b) {
			this.capture.write(b);
			this.original.write(b);
		}

		@Override
		public synchronized void write(byte[] b, int off, int len) {
			this.capture.write(b, off, len);
			this.original.write(b, off, len);
		}

	}

}
