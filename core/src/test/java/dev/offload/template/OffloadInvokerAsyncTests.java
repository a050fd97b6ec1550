package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link OffloadInvoker#invokeAsync}: a call returning a stage keeps its session until
 * the stage completes and the session's work is done.
 */
class OffloadInvokerAsyncTests {

	private DeviceRegistry registry;

	private Device device;

	private OffloadInvoker invoker;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.device = this.registry.device(0);
		this.invoker = new OffloadInvoker(this.registry);
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void aStageThatOutlivesTheShutdownShouldFailItsCallerAndKeepItsSession() throws Throwable {
		CompletableFuture<String> methodStage = new CompletableFuture<>();
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession session = OffloadSessionBinding.currentSession().orElseThrow();
			used.set(session);
			session.streamId();
			return methodStage;
		});
		assertThat(this.registry.close(Duration.ofMillis(200))).as("closed cleanly").isFalse();
		assertThatExceptionOfType(CompletionException.class).isThrownBy(returned.toCompletableFuture()::join)
			.withCauseInstanceOf(StreamPoolClosedException.class)
			.withMessageContaining("Session " + used.get().id() + " on device 0 was shut down before its call's stage");
		// The application's stage may still use its session: the stream stays lent.
		assertThat(used.get().isClosed()).isFalse();
		assertThat(this.device.streamPool().inUse()).isOne();
		methodStage.complete("late");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.device.streamPool().inUse() == 0);
	}

	@Test
	void invokeAsyncShouldKeepTheSessionUntilTheStageCompletesAndItsWorkIsDone() throws Throwable {
		int gate = TemplateTestKernels.newGate();
		CompletableFuture<String> methodStage = new CompletableFuture<>();
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession session = OffloadSessionBinding.currentSession().orElseThrow();
			used.set(session);
			session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
			return methodStage;
		});
		assertThat(returned).isNotSameAs(methodStage);
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		assertThat(used.get().isClosed()).isFalse();
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);

		methodStage.complete("result");
		assertThat(used.get().isClosed()).isTrue();
		assertThat(returned.toCompletableFuture()).isNotDone();
		assertThat(this.device.streamPool().inUse()).isEqualTo(1);

		TemplateTestKernels.open(gate);
		assertThat(returned.toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo("result");
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.streamPool().statistics().discarded()).isZero();
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	void invokeAsyncWhenStageFailsShouldFailWithTheSameExceptionAfterTheStreamIsBack() throws Throwable {
		IllegalStateException failure = new IllegalStateException("stage failed");
		CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
			OffloadSessionBinding.currentSession().orElseThrow().streamId();
			return CompletableFuture.failedFuture(failure);
		});
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> returned.toCompletableFuture().get(30, TimeUnit.SECONDS))
			.satisfies((ex) -> assertThat(ex.getCause()).isSameAs(failure));
		assertThat(this.device.streamPool().inUse()).isZero();
	}

	@Test
	void invokeAsyncWhenWorkFailsShouldFailTheStageAndDiscardTheStream() throws Throwable {
		CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession session = OffloadSessionBinding.currentSession().orElseThrow();
			session.launch(TemplateTestKernels.FAIL, LaunchConfig.of(1, 1), 3);
			return CompletableFuture.completedFuture("unused");
		});
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> returned.toCompletableFuture().get(30, TimeUnit.SECONDS))
			.withMessageContaining("kernel failed on purpose 3");
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void invokeAsyncWhenCallThrowsShouldRethrowTheSameExceptionAndCloseTheSession() {
		IllegalArgumentException failure = new IllegalArgumentException("bad input");
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
				used.set(OffloadSessionBinding.currentSession().orElseThrow());
				used.get().streamId();
				throw failure;
			}))
			.isSameAs(failure);
		assertThat(used.get().isClosed()).isTrue();
		assertThat(this.device.streamPool().inUse()).isZero();
	}

	@Test
	void invokeAsyncWhenJoiningShouldReturnTheCallsOwnStage() throws Throwable {
		CompletableFuture<String> methodStage = CompletableFuture.completedFuture("joined");
		this.invoker.invoke(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession outer = OffloadSessionBinding.currentSession().orElseThrow();
			CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
				assertThat(OffloadSessionBinding.currentSession()).containsSame(outer);
				return methodStage;
			});
			assertThat(returned).isSameAs(methodStage);
			assertThat(outer.isClosed()).isFalse();
			return null;
		});
	}

	@Test
	void invokeAsyncWhenStageIsNullShouldCloseTheSessionAtOnce() throws Throwable {
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		CompletionStage<String> returned = this.invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> {
			used.set(OffloadSessionBinding.currentSession().orElseThrow());
			return null;
		});
		assertThat(returned).isNull();
		assertThat(used.get().isClosed()).isTrue();
	}

	@Test
	void boundedPoolOfNStreamsShouldHoldNAsyncJobsThatSubmitInTheirSession() throws Throwable {
		int n = 4;
		DeviceRegistry bounded = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(new StreamPoolConfig(n, n, Duration.ofSeconds(2)))
			.build();
		try {
			OffloadInvoker invoker = new OffloadInvoker(bounded);
			OffloadTemplate template = new OffloadTemplate(bounded);
			StreamPool pool = bounded.device(0).streamPool();
			int gate = TemplateTestKernels.newGate();
			List<CompletableFuture<Integer>> jobs = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				int job = i;
				// What an @Offload method returning a CompletableFuture does: submit
				// joins the method's session.
				jobs.add(invoker.invokeAsync(OffloadAttributes.DEFAULTS, () -> template.submit((session) -> {
					session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
					return job;
				})).toCompletableFuture());
			}
			StreamPoolStatistics held = pool.statistics();
			assertThat(held.borrows()).isEqualTo(n);
			assertThat(held.inUse()).isEqualTo(n);
			assertThat(held.timeouts()).isZero();
			TemplateTestKernels.open(gate);
			for (int i = 0; i < n; i++) {
				assertThat(jobs.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i);
			}
			StreamPoolStatistics done = pool.statistics();
			assertThat(done.borrows()).isEqualTo(n);
			assertThat(done.inUse()).isZero();
		}
		finally {
			bounded.close(Duration.ofSeconds(5));
		}
	}

}
