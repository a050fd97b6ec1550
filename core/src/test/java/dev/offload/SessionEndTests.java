package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * How a session ends when something else went wrong first: an interrupted caller, a call
 * the driver refused behind running work, a completion executor that throws or was shut
 * down, a question asked after the end. In each, the stream and the buffers go back
 * exactly once and only after the work on them, and no caller waits for ever.
 */
class SessionEndTests {

	private static final KernelRef HOLD = KernelRef.of(TestKernels.MODULE, "hold");

	private static final KernelRef NOOP = KernelRef.of(TestKernels.MODULE, "noop");

	private final int gate = 41_000 + (int) (System.nanoTime() & 0xfff);

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private DeviceRegistry registry;

	private ExecutorService executor;

	private RefusingBackend backend;

	private Device start(DeviceRegistry.Builder builder) {
		this.registry = builder.build();
		Device device = this.registry.device(0);
		device.loadModule(TestKernels.MODULE);
		return device;
	}

	private DeviceRegistry.Builder refusing() {
		this.backend = new RefusingBackend(HostBackend.builder().deviceCount(1).workersPerDevice(2).build());
		return DeviceRegistry.builder(this.backend).streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2));
	}

	@AfterEach
	void tearDown() {
		TestKernels.gate(this.gate).countDown();
		TestKernels.gate(this.gate + 1).countDown();
		if (this.registry != null) {
			this.registry.close(Duration.ofSeconds(10));
		}
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
		this.callers.shutdownNow();
	}

	private void awaitStarted(int id) throws InterruptedException {
		assertThat(TestKernels.started(id).await(10, TimeUnit.SECONDS)).as("the kernel started").isTrue();
	}

	@Test
	void closeOnAnInterruptedThreadWaitsForTheWorkAndKeepsTheInterrupt() throws Exception {
		Device device = start(refusing());
		OffloadSession session = device.openSession();
		session.allocate(4096);
		session.launch(HOLD, LaunchConfig.of(1, 1), this.gate);
		awaitStarted(this.gate);
		Future<Boolean> interruptedAfterClose = this.callers.submit(() -> {
			Thread.currentThread().interrupt();
			session.close();
			return Thread.currentThread().isInterrupted();
		});
		// As the driver's synchronize, the wait is not cut short: the kernel still runs
		// on
		// the session's stream and buffer, so neither goes back.
		assertThat(catchThrowable(() -> interruptedAfterClose.get(200, TimeUnit.MILLISECONDS)))
			.isInstanceOf(java.util.concurrent.TimeoutException.class);
		assertThat(device.streamPool().inUse()).isOne();
		TestKernels.gate(this.gate).countDown();
		assertThat(interruptedAfterClose.get(10, TimeUnit.SECONDS)).as("the interrupt is kept").isTrue();
		assertThat(device.streamPool().inUse()).isZero();
		assertThat(device.streamPool().statistics().discarded()).isZero();
	}

	/**
	 * A session whose launch the driver refused at once, behind a kernel still running.
	 */
	private OffloadSession refusedBehindRunningWork(Device device, Duration timeout) throws Exception {
		OffloadSession session = device.openSession(StreamPriority.NORMAL, timeout);
		session.launch(HOLD, LaunchConfig.of(1, 1), this.gate);
		awaitStarted(this.gate);
		assertThatExceptionOfType(BackendException.class)
			.isThrownBy(() -> session.launch(NOOP, LaunchConfig.of(1, 1).withSharedMemory(1 << 20)))
			.satisfies((ex) -> assertThat(ex.isSticky()).isFalse());
		return session;
	}

	@Test
	void closeAsyncAfterARefusedCallReturnsAtOnceAndEndsTheSessionWhenTheWorkIsDone() throws Exception {
		Device device = start(refusing());
		OffloadSession session = refusedBehindRunningWork(device, null);
		Future<CompletableFuture<Void>> closing = this.callers.submit(session::closeAsync);
		CompletableFuture<Void> closed = closing.get(10, TimeUnit.SECONDS);
		assertThat(closed).isNotDone();
		assertThat(device.streamPool().inUse()).isOne();
		TestKernels.gate(this.gate).countDown();
		assertThat(catchThrowable(() -> closed.get(10, TimeUnit.SECONDS))).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(BackendException.class);
		assertThat(device.streamPool().inUse()).isZero();
	}

	@Test
	void closeAfterARefusedCallWaitsForTheWorkNoLongerThanTheSessionsDeadline() throws Exception {
		Device device = start(refusing());
		OffloadSession session = refusedBehindRunningWork(device, Duration.ofMillis(300));
		Future<?> closing = this.callers.submit(session::close);
		assertThat(catchThrowable(() -> closing.get(10, TimeUnit.SECONDS))).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(SessionTimeoutException.class);
		// Handed to the completion thread, which ends the session once the kernel ends.
		assertThat(device.streamPool().inUse()).isOne();
		TestKernels.gate(this.gate).countDown();
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(device.streamPool().inUse()).isZero());
	}

	@Test
	void aRefusedStreamCreationCostsTheTenantNoStream() {
		Device device = start(refusing().streamPool(
				StreamPoolConfig.DEFAULTS.withInitialSize(1).withMaxSize(4).withBorrowTimeout(Duration.ofMillis(500)))
			.tenants(TenantPolicy.DEFAULTS.withTenant("checkout", new TenantPolicy.TenantShare(1, 1, 0))));
		SessionOptions checkout = new SessionOptions(0, StreamPriority.NORMAL, null, 0).withTenant("checkout");
		try (OffloadSession holder = device.openSession()) {
			// The pool's one stream is lent: the tenant's borrow grows the pool, and the
			// driver refuses the stream.
			holder.streamId();
			this.backend.refuseStreamCreations(1);
			try (OffloadSession first = this.registry.openSession(checkout)) {
				assertThatExceptionOfType(BackendException.class).isThrownBy(first::streamId)
					.withMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
			}
			assertThat(device.isHealthy()).isTrue();
			assertThat(device.streamPool().tenantStatistics("checkout").inUse()).isZero();
			try (OffloadSession second = this.registry.openSession(checkout)) {
				assertThat(catchThrowable(second::streamId)).isNull();
			}
		}
	}

	@Test
	void theCompletionThreadOutlivesAnExecutorThatThrows() throws Exception {
		AtomicBoolean throwOnce = new AtomicBoolean(true);
		this.executor = Executors.newFixedThreadPool(2);
		Device device = start(refusing().completionExecutor((task) -> {
			if (throwOnce.compareAndSet(true, false)) {
				throw new IllegalStateException("executor is closing");
			}
			this.executor.execute(task);
		}));
		for (int id : new int[] { this.gate, this.gate + 1 }) {
			OffloadSession session = device.openSession();
			session.launch(HOLD, LaunchConfig.of(1, 1), id);
			CompletableFuture<Void> closed = session.closeAsync();
			TestKernels.gate(id).countDown();
			assertThat(catchThrowable(() -> closed.get(10, TimeUnit.SECONDS))).as("session on gate %d", id).isNull();
		}
		assertThat(device.completions().thread().isAlive()).isTrue();
		assertThat(device.streamPool().inUse()).isZero();
	}

	@Test
	void aBoundedFutureFailsAtItsDeadlineEvenAfterTheCompletionExecutorShutDown() throws Exception {
		this.executor = Executors.newFixedThreadPool(2);
		Device device = start(refusing().completionExecutor(this.executor));
		OffloadSession session = device.openSession(StreamPriority.NORMAL, Duration.ofMillis(200));
		session.launch(HOLD, LaunchConfig.of(1, 1), this.gate);
		CompletableFuture<Void> bounded = session.withinDeadline(session.closeAsync());
		this.executor.shutdown();
		// The kernel runs until the gate opens, long past the deadline.
		assertThat(catchThrowable(() -> bounded.get(10, TimeUnit.SECONDS))).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(SessionTimeoutException.class);
	}

	@Test
	void theDeviceReleasesNothingWhileItsCompletionThreadRuns() throws Exception {
		Device device = start(refusing());
		OffloadSession session = device.openSession();
		session.launch(NOOP, LaunchConfig.of(1, 1));
		CompletableFuture<Void> reached = session.whenDone();
		session.close();
		Thread completionThread = device.completions().thread();
		assertThat(completionThread).isNotNull();
		assertThat(this.registry.close(Duration.ofSeconds(10))).isTrue();
		// Its last query is behind it when the context goes.
		assertThat(completionThread.isAlive()).isFalse();
		assertThat(reached).isDone();
	}

	@Test
	void aListenerThatThrowsAtTheEndFailsNoSession() throws Exception {
		Device device = start(refusing().listener(new OffloadListener() {

			@Override
			public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
				throw new IllegalStateException("a listener's bug");
			}

		}));
		OffloadSession closed = device.openSession();
		closed.launch(NOOP, LaunchConfig.of(1, 1));
		closed.close();
		OffloadSession closedAsync = device.openSession();
		closedAsync.launch(NOOP, LaunchConfig.of(1, 1));
		assertThat(catchThrowable(() -> closedAsync.closeAsync().get(10, TimeUnit.SECONDS))).isNull();
		assertThat(device.streamPool().inUse()).isZero();
		assertThat(device.activeSessions()).isZero();
	}

	@Test
	void streamIdAfterCloseBorrowsNothing() {
		Device device = start(refusing());
		OffloadSession unused = device.openSession();
		unused.close();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(unused::streamId)
			.withMessageContaining("is closed");
		OffloadSession used = device.openSession();
		int id = used.streamId();
		used.close();
		assertThat(used.streamId()).as("the stream it had").isEqualTo(id);
		assertThat(device.streamPool().inUse()).isZero();
		assertThat(this.registry.close(Duration.ofSeconds(10))).isTrue();
	}

	@Test
	void closingAgainAnswersAsTheFirstClose() throws Exception {
		Device device = start(refusing());
		OffloadSession session = device.openSession();
		session.launch(HOLD, LaunchConfig.of(1, 1), this.gate);
		awaitStarted(this.gate);
		// The session stays open past the wait: its stream is still lent.
		assertThat(this.registry.close(Duration.ofMillis(100))).isFalse();
		assertThat(this.registry.close(Duration.ofMillis(100))).isFalse();
		TestKernels.gate(this.gate).countDown();
		session.close();
	}

}
