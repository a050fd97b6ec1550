package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Session deadlines bound asynchronous work as they bound synchronous waits: the future
 * of {@code submit}, {@code runAsync} and an {@code invokeAsync} stage fails with a
 * {@link SessionTimeoutException} once the deadline passes, while the session's stream
 * comes back only when its work ends.
 */
class AsyncDeadlineTests {

	private static final Duration SHORT = Duration.ofMillis(100);

	// One thread, so that a test can hold completions back until its continuation is
	// attached.
	private final ExecutorService completions = Executors
		.newSingleThreadExecutor((task) -> new Thread(task, "test-completion"));

	private DeviceRegistry registry;

	private Device device;

	private int gate;

	private void start(Duration defaultTimeout) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.completionExecutor(this.completions)
			.sessionTimeout(defaultTimeout)
			.build();
		this.device = this.registry.device(0);
		this.gate = TemplateTestKernels.newGate();
	}

	@AfterEach
	void tearDown() {
		TemplateTestKernels.open(this.gate);
		this.registry.close(Duration.ofSeconds(30));
		this.completions.shutdown();
	}

	@Test
	void submitWhenWorkOutlivesTheTimeoutShouldFailAtTheDeadlineAndReturnTheStreamWhenTheWorkEnds() throws Exception {
		start(null);
		OffloadTemplate template = new OffloadTemplate(this.registry);
		CountDownLatch attached = new CountDownLatch(1);
		this.completions.execute(() -> awaitQuietly(attached));
		CompletableFuture<String> future = template.submit(OffloadAttributes.DEFAULTS.withTimeout(SHORT), (session) -> {
			session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), this.gate);
			return "late";
		});
		AtomicReference<String> continuationThread = new AtomicReference<>();
		// The completion executor runs the continuation, unless this thread does: a
		// future whose deadline passed before submit returned (a loaded machine), or the
		// JDK's CompletableFuture letting a thread that waits in get() run the dependents
		// it finds once the future completes. Never the device's completion thread.
		String registering = Thread.currentThread().getName();
		CompletableFuture<Void> continuation = future.handle((value, failure) -> {
			continuationThread.set(Thread.currentThread().getName());
			return null;
		});
		attached.countDown();
		assertTimedOut(future);
		continuation.get(30, TimeUnit.SECONDS);
		assertThat(continuationThread.get()).isIn("test-completion", registering);
		assertThat(this.device.streamPool().statistics().sessionTimeouts()).isEqualTo(1);
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);
		TemplateTestKernels.open(this.gate);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.device.streamPool().inUse() == 0);
		assertThat(this.device.activeSessions()).isZero();
		assertThat(this.device.streamPool().statistics().discarded()).isZero();
	}

	@Test
	void runAsyncWithTheRegistrysSessionTimeoutShouldFailAtTheDeadline() throws Exception {
		start(SHORT);
		OffloadTemplate template = new OffloadTemplate(this.registry);
		CompletableFuture<KernelResult> future = template.kernel(TemplateTestKernels.HOLD)
			.config(LaunchConfig.of(1, 1))
			.arg(this.gate)
			.runAsync();
		assertTimedOut(future);
		assertThat(this.device.streamPool().statistics().sessionTimeouts()).isEqualTo(1);
		TemplateTestKernels.open(this.gate);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.device.streamPool().inUse() == 0);
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	void invokeAsyncWhenTheStageOutlivesTheTimeoutShouldFailAtTheDeadlineAndCloseTheSessionWhenItCompletes()
			throws Throwable {
		start(null);
		OffloadInvoker invoker = new OffloadInvoker(this.registry);
		CompletableFuture<String> methodStage = new CompletableFuture<>();
		CompletionStage<String> returned = invoker.invokeAsync(OffloadAttributes.DEFAULTS.withTimeout(SHORT), () -> {
			OffloadSessionBinding.currentSession().orElseThrow().fill(this.device.allocate(8), (byte) 1);
			return methodStage;
		});
		assertTimedOut(returned.toCompletableFuture());
		assertThat(this.device.streamPool().statistics().sessionTimeouts()).isEqualTo(1);
		assertThat(this.device.activeSessions()).isEqualTo(1);
		methodStage.complete("late");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.device.activeSessions() == 0);
		assertThat(this.device.streamPool().inUse()).isZero();
	}

	@Test
	void submitWithinTheTimeoutShouldCompleteWithTheResultAndCountNoTimeout() throws Exception {
		start(Duration.ofMinutes(1));
		OffloadTemplate template = new OffloadTemplate(this.registry);
		CompletableFuture<String> future = template.submit((session) -> {
			session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), this.gate);
			return "done";
		});
		TemplateTestKernels.open(this.gate);
		assertThat(future.get(30, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.device.streamPool().statistics().sessionTimeouts()).isZero();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void assertTimedOut(CompletableFuture<?> future) {
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(SessionTimeoutException.class)
			.withMessageContaining("session timeout 100 ms");
	}

}
