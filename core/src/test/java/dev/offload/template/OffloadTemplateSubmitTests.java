package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link OffloadTemplate#submit}: futures that complete when the work is done, with no
 * thread waiting per call.
 */
class OffloadTemplateSubmitTests {

	private static final int WORKERS = 4;

	private DeviceRegistry registry;

	private OffloadTemplate template;

	private void start(int devices) {
		this.registry = DeviceRegistry
			.builder(HostBackend.builder().deviceCount(devices).workersPerDevice(WORKERS).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4).withMaxSize(0))
			.build();
		this.template = new OffloadTemplate(this.registry);
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		for (Device device : this.registry.devices()) {
			StreamPoolStatistics stats = device.streamPool().statistics();
			assertThat(stats.inUse()).isZero();
			assertThat(stats.idle()).isEqualTo(stats.size());
			assertThat(device.activeSessions()).isZero();
		}
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void submitShouldCompleteWithTheResultOnlyWhenTheWorkIsDone() throws Exception {
		start(1);
		int gate = TemplateTestKernels.newGate();
		CompletableFuture<String> future = this.template.submit((session) -> {
			session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
			return "result";
		});
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		assertThat(future).isNotDone();
		assertThat(this.registry.device(0).streamPool().inUse()).isEqualTo(1);
		TemplateTestKernels.open(gate);
		assertThat(future.get(30, TimeUnit.SECONDS)).isEqualTo("result");
	}

	@Test
	@Tag("stress")
	void tenThousandSubmitsInFlightShouldCompleteWithAHandfulOfThreadsAndReturnEveryStream() throws Exception {
		start(1);
		int before = threadsBesidesTheCompletionExecutor();
		int gate = TemplateTestKernels.newGate();
		List<CompletableFuture<Integer>> futures = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			int task = i;
			futures.add(this.template.submit((session) -> {
				session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
				return task;
			}));
		}
		Device device = this.registry.device(0);
		assertThat(device.streamPool().inUse()).isEqualTo(10_000);
		assertThat(device.activeSessions()).isEqualTo(10_000);
		assertThat(futures).noneMatch(CompletableFuture::isDone);
		List<String> offloadThreads = liveThreads().stream()
			.filter((name) -> name.startsWith("offload-") && !name.startsWith("offload-async-"))
			.toList();
		// The device's workers and its one completion thread: nothing per submitted call
		// (the completion executor's threads are shared by every registry, bounded by the
		// CPUs).
		assertThat(offloadThreads).hasSizeLessThanOrEqualTo(WORKERS + 1);
		// The completion executor may start one of its threads meanwhile (for an earlier
		// test's completions): it is shared and bounded, not this test's.
		assertThat(threadsBesidesTheCompletionExecutor() - before).isLessThanOrEqualTo(WORKERS + 1);

		TemplateTestKernels.open(gate);
		CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		for (int i = 0; i < futures.size(); i++) {
			assertThat(futures.get(i).join()).isEqualTo(i);
		}
		StreamPoolStatistics stats = device.streamPool().statistics();
		assertThat(stats.inUse()).isZero();
		assertThat(stats.idle()).isEqualTo(stats.size()).isGreaterThanOrEqualTo(10_000);
		assertThat(stats.discarded()).isZero();
	}

	@Test
	void submitWhenSessionBoundShouldJoinItAndCompleteWhenItsWorkIsDone() throws Exception {
		start(1);
		int gate = TemplateTestKernels.newGate();
		this.template.execute((outer) -> {
			AtomicReference<OffloadSession> used = new AtomicReference<>();
			CompletableFuture<String> future = this.template.submit((session) -> {
				used.set(session);
				session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
				return "joined";
			});
			assertThat(used.get()).isSameAs(outer);
			assertThat(future).isNotDone();
			assertThat(outer.isClosed()).isFalse();
			TemplateTestKernels.open(gate);
			assertThat(future.join()).isEqualTo("joined");
			assertThat(outer.isClosed()).isFalse();
			return null;
		});
	}

	@Test
	void submitWhenSessionBoundAndNoWorkEnqueuedShouldCompleteAtOnce() {
		start(1);
		this.template.execute((outer) -> {
			assertThat(this.template.submit((session) -> "nothing")).isCompletedWithValue("nothing");
			return null;
		});
	}

	@Test
	void submitWhenCallbackThrowsShouldFailTheFutureWithTheSameExceptionAndLeaveNothingBound() throws Exception {
		start(1);
		IllegalStateException failure = new IllegalStateException("callback failed");
		CompletableFuture<Object> future = this.template.submit((session) -> {
			session.fill(session.allocate(16), (byte) 2);
			throw failure;
		});
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS))
			.satisfies((ex) -> assertThat(ex.getCause()).isSameAs(failure));
		assertThat(this.registry.device(0).streamPool().statistics().discarded()).isZero();
	}

	@Test
	void submitWhenWorkFailsShouldFailTheFutureAndDiscardTheStream() {
		start(1);
		CompletableFuture<String> future = this.template.submit((session) -> {
			session.launch(TemplateTestKernels.FAIL, LaunchConfig.of(1, 1), 9);
			return "unused";
		});
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS))
			.withMessageContaining("kernel failed on purpose 9");
		assertThat(this.registry.device(0).streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void submitWithDeviceShouldUseThatDevice() throws Exception {
		start(3);
		assertThat(this.template.submit(1, (session) -> session.device().id()).get(30, TimeUnit.SECONDS)).isEqualTo(1);
	}

	@Test
	void leastBusyShouldSpreadConcurrentWorkOverThreeDevices() throws Exception {
		start(3);
		int gate = TemplateTestKernels.newGate();
		List<CompletableFuture<Integer>> futures = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			futures.add(this.template.submit((session) -> {
				session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
				return session.device().id();
			}));
		}
		for (Device device : this.registry.devices()) {
			assertThat(device.activeSessions()).isEqualTo(10);
		}
		TemplateTestKernels.open(gate);
		CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		Map<Integer, Long> perDevice = futures.stream()
			.map(CompletableFuture::join)
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		assertThat(perDevice).containsOnlyKeys(0, 1, 2).allSatisfy((id, count) -> assertThat(count).isEqualTo(10));
	}

	@Test
	void continuationThatWaitsForMoreOffloadWorkShouldCompleteOffTheCompletionThread() throws Exception {
		start(1);
		int gate = TemplateTestKernels.newGate();
		AtomicReference<String> continuationThread = new AtomicReference<>();
		CompletableFuture<Float> chained = this.template.submit((session) -> {
			session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
			return 2f;
		}).thenApply((factor) -> {
			continuationThread.set(Thread.currentThread().getName());
			// Waits for GPU work whose completion the device's completion thread must
			// see.
			return scaleOne(3f, factor).join();
		});
		TemplateTestKernels.open(gate);
		assertThat(chained.get(30, TimeUnit.SECONDS)).isEqualTo(6f);
		assertThat(continuationThread.get()).isNotEqualTo("offload-device0-completion");
		// The completion thread is still free for other work.
		assertThat(this.template.submit((session) -> scaleOne(5f, 2f).join()).get(30, TimeUnit.SECONDS)).isEqualTo(10f);
	}

	@Test
	void manyContinuationsWaitingForMoreOffloadWorkAtOnceShouldAllComplete() throws Exception {
		start(1);
		int gate = TemplateTestKernels.newGate();
		// More blocked continuations than the default completion executor has threads.
		int jobs = 3 * Math.max(2, Runtime.getRuntime().availableProcessors());
		List<CompletableFuture<Float>> futures = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			float value = i;
			futures.add(this.template.submit((session) -> {
				session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
				return value;
			}).thenApply((v) -> scaleOne(v, 2f).join()));
		}
		TemplateTestKernels.open(gate);
		CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		for (int i = 0; i < jobs; i++) {
			assertThat(futures.get(i).join()).isEqualTo(2f * i);
		}
	}

	private CompletableFuture<Float> scaleOne(float value, float factor) {
		return this.template.kernel(TemplateTestKernels.SCALE)
			.config(LaunchConfig.of(1, 1))
			.arg(1)
			.arg(factor)
			.in(new float[] { value })
			.outFloats(1)
			.runAsync()
			.thenApply((result) -> result.floats(0)[0]);
	}

	private static int threadsBesidesTheCompletionExecutor() {
		return (int) liveThreads().stream().filter((name) -> !name.startsWith("offload-async-")).count();
	}

	private static List<String> liveThreads() {
		return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).toList();
	}

}
