package dev.offload;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Collections;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class OffloadSessionTests {

	private HostBackend backend;

	private DeviceRegistry registry;

	private Device device;

	private KernelModule module;

	@BeforeEach
	void setUp() {
		this.backend = HostBackend.builder().deviceCount(2).workersPerDevice(4).build();
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.device = this.registry.device(0);
		this.module = this.device.loadModule(TestKernels.MODULE);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void sessionShouldBorrowOnFirstOperationAndReleaseOnClose() {
		OffloadSession session = this.device.openSession();
		assertThat(session.hasStream()).isFalse();
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.activeSessions()).isEqualTo(1);
		session.fill(session.allocate(16), (byte) 1);
		assertThat(session.hasStream()).isTrue();
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);
		session.close();
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.activeSessions()).isZero();
		session.close();
	}

	@Test
	void keptSessionShouldReuseTheEventsItClosedAfterItsSynchronize() {
		Set<Object> backendEvents = Collections.newSetFromMap(new IdentityHashMap<>());
		try (OffloadSession producer = this.device.openSession(); OffloadSession consumer = this.device.openSession()) {
			DeviceBuffer block = producer.allocate(64);
			for (int request = 1; request <= 20; request++) {
				producer.fill(block, (byte) request);
				StreamEvent filled = producer.recordEvent();
				backendEvents.add(filled.backendEvent());
				consumer.waitFor(filled);
				consumer.synchronize();
				assertThat(filled.isComplete()).isTrue();
				filled.close();
				assertThatIllegalStateException().isThrownBy(filled::isComplete).withMessageContaining("closed");
				producer.synchronize();
				assertThatIllegalStateException().isThrownBy(filled::synchronize).withMessage("The event is closed");
			}
		}
		// Each request's event went back to the pool at the synchronize after its close,
		// and the next request's record took it again.
		assertThat(backendEvents).hasSize(1);
	}

	@Test
	void saxpyShouldComputeOnTheDevice() {
		float[] x = { 1, 2, 3, 4, 5 };
		float[] y = { 10, 20, 30, 40, 50 };
		float[] result = new float[5];
		try (OffloadSession session = this.device.openSession()) {
			HostBuffer hostX = session.hostBuffer(x);
			HostBuffer hostY = session.hostBuffer(y);
			DeviceBuffer deviceX = session.allocate(hostX.size());
			DeviceBuffer deviceY = session.allocate(hostY.size());
			session.copy(hostX, deviceX);
			session.copy(hostY, deviceY);
			session.launch(this.module.kernel("saxpy"), LaunchConfig.forThreads(5, 4), 5, 2f, deviceX, deviceY);
			HostBuffer out = session.allocateHost(hostY.size());
			session.copy(deviceY, out);
			session.synchronize();
			out.getFloats(0, result);
		}
		assertThat(result).containsExactly(12, 24, 36, 48, 60);
	}

	@Test
	void kernelThatThrowsShouldReachCallerAndDiscardTheStream() {
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 7);
		int streamId = session.streamId();
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::synchronize)
			.withMessageContaining("kernel 'fail' failed on device 0: HOST_ERROR_LAUNCH_FAILED")
			.withMessageContaining("kernel failed on purpose 7")
			.satisfies((ex) -> assertThat(ex.isSticky()).isFalse());
		session.close();
		StreamPoolStatistics stats = this.device.streamPool().statistics();
		assertThat(stats.discarded()).isEqualTo(1);
		assertThat(stats.inUse()).isZero();
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
		assertThat(this.device.isHealthy()).isTrue();
		try (OffloadSession next = this.device.openSession()) {
			assertThat(next.streamId()).isNotEqualTo(streamId);
		}
	}

	@Test
	void closeWhenWorkFailedAndNotReportedShouldThrow() {
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 1);
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::close)
			.withMessageContaining("kernel failed on purpose 1");
		assertThat(session.isClosed()).isTrue();
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void outOfBoundsWriteShouldFailOnlyThatDevice() {
		OffloadSession session = this.device.openSession();
		DeviceBuffer buffer = session.allocate(16);
		session.launch(this.module.kernel("outOfBounds"), LaunchConfig.of(1, 1), buffer);
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::close)
			.withMessageContaining("HOST_ERROR_ILLEGAL_ADDRESS")
			.satisfies((ex) -> assertThat(ex.isSticky()).isTrue());
		assertThat(this.device.isHealthy()).isFalse();
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(this.device::openSession)
			.withMessageContaining("Device 0 has failed and lends no streams")
			.withMessageContaining("HOST_ERROR_ILLEGAL_ADDRESS");
		assertThat(this.registry.leastBusy()).isSameAs(this.registry.device(1));
		try (OffloadSession other = this.registry.device(1).openSession()) {
			other.fill(other.allocate(8), (byte) 0);
		}
		assertThat(this.registry.device(1).isHealthy()).isTrue();
	}

	@Test
	void synchronizeShouldWaitOnlyForThisSessionsWork() {
		int gateId = 201;
		OffloadSession held = this.device.openSession();
		held.launch(this.module.kernel("hold"), LaunchConfig.of(1, 1), gateId);
		try (OffloadSession other = this.device.openSession()) {
			other.launch(this.module.kernel("noop"), LaunchConfig.of(1, 1));
			other.synchronize();
			assertThat(TestKernels.gate(gateId).getCount()).isEqualTo(1);
		}
		finally {
			TestKernels.gate(gateId).countDown();
		}
		held.close();
	}

	@Test
	void eventShouldOrderWorkAcrossSessions() {
		int gateId = 202;
		float[] out = new float[4];
		try (OffloadSession producer = this.device.openSession(); OffloadSession consumer = this.device.openSession()) {
			DeviceBuffer shared = producer.allocate(16);
			producer.launch(this.module.kernel("hold"), LaunchConfig.of(1, 1), gateId);
			producer.copy(producer.hostBuffer(new float[] { 1, 2, 3, 4 }), shared);
			StreamEvent ready = producer.recordEvent();
			consumer.waitFor(ready);
			HostBuffer result = consumer.allocateHost(16);
			consumer.copy(shared, result);
			StreamEvent copied = consumer.recordEvent();
			assertThat(ready.isComplete()).isFalse();
			assertThat(copied.isComplete()).isFalse();
			TestKernels.gate(gateId).countDown();
			consumer.synchronize();
			assertThat(ready.isComplete()).isTrue();
			result.getFloats(0, out);
		}
		assertThat(out).containsExactly(1, 2, 3, 4);
		assertThat(this.device.completions().eventsInUse()).isZero();
	}

	@Test
	void closeAsyncShouldCompleteTenThousandSessionsWithOneCompletionThread() {
		Kernel noop = this.module.kernel("noop");
		long threadsBefore = threadsOutsideTheCompletionExecutor();
		List<CompletableFuture<Void>> futures = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			OffloadSession session = this.device.openSession();
			session.launch(noop, LaunchConfig.of(1, 1));
			futures.add(session.closeAsync());
		}
		CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).join();
		Set<String> offloadThreads = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> name.startsWith("offload-"))
			.collect(Collectors.toSet());
		// One completion thread and at most the device's 4 workers, whatever the number
		// of sessions; the futures complete on the shared completion executor, at most
		// one thread per CPU when nothing blocks. The JVM's one deadline timer, started
		// by an earlier test of this JVM or not, is no thread of this device's.
		assertThat(offloadThreads).contains("offload-device0-completion");
		assertThat(offloadThreads)
			.filteredOn((name) -> !name.startsWith("offload-async-") && !name.equals("offload-deadlines"))
			.hasSizeLessThanOrEqualTo(5);
		assertThat(offloadThreads).filteredOn((name) -> name.startsWith("offload-async-"))
			.hasSizeLessThanOrEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
		assertThat(threadsOutsideTheCompletionExecutor() - threadsBefore).isLessThanOrEqualTo(5);
		StreamPoolStatistics stats = this.device.streamPool().statistics();
		assertThat(stats.inUse()).isZero();
		assertThat(stats.idle()).isEqualTo(stats.size());
		assertThat(stats.borrows()).isEqualTo(10_000);
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	void closeAsyncWhenWorkFailsShouldFailTheFutureAndDiscardTheStream() {
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 3);
		CompletableFuture<Void> done = session.closeAsync();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(done::get)
			.withCauseInstanceOf(BackendException.class)
			.withMessageContaining("kernel failed on purpose 3");
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
		assertThat(session.closeAsync()).isSameAs(done);
	}

	@Test
	void closeAsyncWithoutWorkShouldCompleteAtOnce() {
		OffloadSession session = this.device.openSession();
		assertThat(session.closeAsync()).isCompleted();
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	void sessionBuffersShouldGoBackToTheCacheWhenTheSessionEnds() {
		try (OffloadSession session = this.device.openSession()) {
			session.allocate(1000);
		}
		assertThat(this.device.cachedBufferBytes()).isEqualTo(1024);
		try (OffloadSession session = this.device.openSession()) {
			session.allocate(1000);
			assertThat(this.device.cachedBufferBytes()).isZero();
		}
		this.device.trimBufferCache();
		assertThat(this.device.cachedBufferBytes()).isZero();
	}

	@Test
	void highPrioritySessionShouldUseAHighPriorityStream() {
		try (OffloadSession session = this.device.openSession(StreamPriority.HIGH)) {
			session.fill(session.allocate(4), (byte) 0);
			assertThat(this.device.streamPool().statistics().byPriority()).containsKey(StreamPriority.HIGH);
		}
	}

	@Test
	void unwrapShouldExposeTheBackendStream() {
		try (OffloadSession session = this.device.openSession()) {
			assertThat(session.unwrap(Object.class)).isNotNull();
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> session.unwrap(String.class))
				.withMessageContaining("The host backend's stream is a");
		}
	}

	@Test
	void whenDoneShouldCompleteOnceTheWorkSoFarIsDoneWithoutASecondStreamOrEndingTheSession() {
		int gateId = 203;
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("hold"), LaunchConfig.of(1, 1), gateId);
		CompletableFuture<Void> done = session.whenDone();
		assertThat(done).isNotDone();
		assertThat(this.device.streamPool().statistics().borrows()).isEqualTo(1);
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);
		TestKernels.gate(gateId).countDown();
		done.join();
		assertThat(session.isClosed()).isFalse();
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);
		session.close();
		assertThat(this.device.streamPool().statistics().borrows()).isEqualTo(1);
		assertThat(this.device.completions().eventsInUse()).isZero();
	}

	@Test
	void whenDoneWhenTheWorkFailsShouldFailAndLeaveTheFailureToTheSessionsOwner() {
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 4);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> session.whenDone().get())
			.withCauseInstanceOf(BackendException.class)
			.withMessageContaining("kernel failed on purpose 4");
		assertThatExceptionOfType(BackendException.class).isThrownBy(session::close)
			.withMessageContaining("kernel failed on purpose 4");
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void closeAsyncShouldCompleteOnTheCompletionExecutorNeverOnTheCompletionThread() {
		ExecutorService executor = Executors.newSingleThreadExecutor((task) -> new Thread(task, "app-continuations"));
		DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build())
			.completionExecutor(executor)
			.build();
		try {
			int gateId = 204;
			Device device = registry.device(0);
			OffloadSession session = device.openSession();
			session.launch(device.loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), gateId);
			CompletableFuture<String> thread = session.closeAsync()
				.thenApply((ignored) -> Thread.currentThread().getName());
			TestKernels.gate(gateId).countDown();
			// Nobody joins it: the executor publishes. (A joiner would publish itself.)
			await().atMost(Duration.ofSeconds(30)).until(thread::isDone);
			assertThat(thread.getNow("absent")).isEqualTo("app-continuations");
			assertThat(registry.completionExecutor()).isSameAs(executor);
		}
		finally {
			registry.close(Duration.ofSeconds(5));
			executor.shutdownNow();
		}
	}

	private static long threadsOutsideTheCompletionExecutor() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> !thread.getName().startsWith("offload-async-"))
			.count();
	}

}
