package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.TestKernels;
import dev.offload.backend.host.HostBackend;
import dev.offload.virtualthreads.OnVirtualThreads;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread waiting for a stage of {@code runAsync}'s future (it runs the stages leading
 * to it itself) returns as soon as that stage completes, however it completes: its own
 * timeout ({@code orTimeout}, {@code completeOnTimeout}), a cancellation or a completion
 * from outside, while the work is still held. The work's gate opens only after the waiter
 * returned, so a waiter that waits for the work never returns: the test bounds that with
 * a generous timeout instead of measuring times. The work then still ends in the
 * background, the session closes, its stream goes back to the pool, and the other stages
 * get the work's outcome.
 */
class DependentStageWaitTests {

	private static final String FALLBACK = "fallback";

	/** How long a waiter may take to return: far beyond any timeout of the tests. */
	private static final Duration RETURNS_WITHIN = Duration.ofSeconds(30);

	private DeviceRegistry registry;

	private int gate;

	private void start(Duration sessionTimeout) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.sessionTimeout(sessionTimeout)
			.build();
		this.gate = TemplateTestKernels.newGate();
	}

	@AfterEach
	void tearDown() {
		// Never leaves a kernel held, whatever failed.
		TemplateTestKernels.open(this.gate);
		this.registry.close(Duration.ofSeconds(30));
	}

	@ParameterizedTest
	@EnumSource(Completion.class)
	void aJoinerShouldReturnWhenItsDependentStageCompletesWhileTheWorkIsHeld(Completion completion) throws Exception {
		start(null);
		waitForADependentStage(completion, Wait.JOIN, DependentStageWaitTests::platformThread);
	}

	@ParameterizedTest
	@EnumSource(Completion.class)
	void aGetterShouldReturnWhenItsDependentStageCompletesWhileTheWorkIsHeld(Completion completion) throws Exception {
		start(null);
		waitForADependentStage(completion, Wait.GET, DependentStageWaitTests::platformThread);
	}

	@ParameterizedTest
	@EnumSource(Completion.class)
	void aTimedGetterShouldReturnWhenItsDependentStageCompletesWhileTheWorkIsHeld(Completion completion)
			throws Exception {
		start(null);
		waitForADependentStage(completion, Wait.TIMED_GET, DependentStageWaitTests::platformThread);
	}

	@ParameterizedTest
	@EnumSource(Wait.class)
	void aWaiterShouldReturnWhenItsStageCompletesBeforeTheSessionDeadline(Wait wait) throws Exception {
		// The session's deadline (ten minutes) bounds the future; the caller's own
		// timeout
		// comes first.
		start(Duration.ofMinutes(10));
		for (Completion completion : Completion.values()) {
			waitForADependentStage(completion, wait, DependentStageWaitTests::platformThread);
			this.gate = TemplateTestKernels.newGate();
		}
	}

	@ParameterizedTest
	@EnumSource(Wait.class)
	void runAsyncWithItsOwnTimeoutShouldReturnWhileTheWorkIsHeld(Wait wait) throws Exception {
		start(null);
		OffloadTemplate template = new OffloadTemplate(this.registry);
		CompletableFuture<KernelResult> work = heldWork(template);
		AtomicReference<Object> outcome = new AtomicReference<>();
		// The call as applications write it: the future of runAsync is the stage.
		platformThread(() -> outcome.set(wait.outcome(work.orTimeout(50, TimeUnit.MILLISECONDS))));
		Awaitility.await().atMost(RETURNS_WITHIN).until(() -> outcome.get() != null);
		assertThat(TestKernels.gate(this.gate).getCount()).as("the work's gate, still closed").isOne();
		assertThat(outcome.get()).isInstanceOf(TimeoutException.class);
		TemplateTestKernels.open(this.gate);
		awaitSessionEndedAndStreamBack();
	}

	@Test
	@Tag("java21")
	void aVirtualThreadWaitingForItsDependentStageShouldReturnWhenItCompletesWhileTheWorkIsHeld() throws Exception {
		start(null);
		ExecutorService virtualThreads = OnVirtualThreads.executor();
		try {
			for (Wait wait : Wait.values()) {
				for (Completion completion : Completion.values()) {
					waitForADependentStage(completion, wait, virtualThreads::execute);
					this.gate = TemplateTestKernels.newGate();
				}
			}
		}
		finally {
			virtualThreads.shutdownNow();
		}
	}

	/**
	 * Holds a {@code runAsync} call at its gate, waits for a stage that depends on it on
	 * a thread from {@code threads}, completes that stage as {@code completion} says, and
	 * checks that the waiter returned with the stage's outcome while the gate was still
	 * closed; then opens the gate and checks that the work's outcome reaches the other
	 * stages and that the session ends.
	 */
	private void waitForADependentStage(Completion completion, Wait wait, java.util.concurrent.Executor threads)
			throws Exception {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		CompletableFuture<KernelResult> work = heldWork(template);
		CompletableFuture<Object> stage = work.thenApply((result) -> (Object) result);
		CompletableFuture<Boolean> other = work.thenApply((result) -> result != null);
		completion.before(stage);
		AtomicReference<Thread> waiter = new AtomicReference<>();
		AtomicReference<Object> outcome = new AtomicReference<>();
		threads.execute(() -> {
			waiter.set(Thread.currentThread());
			outcome.set(wait.outcome(stage));
		});
		// Waiting (in the driver, or parked) before it is completed from outside; a
		// timeout may have ended the wait already.
		Awaitility.await().atMost(RETURNS_WITHIN).until(() -> outcome.get() != null || isWaiting(waiter.get()));
		completion.during(stage);
		Awaitility.await()
			.atMost(RETURNS_WITHIN)
			.alias(completion + " of a " + wait + " waiter's stage")
			.until(() -> outcome.get() != null);
		assertThat(TestKernels.gate(this.gate).getCount()).as("the work's gate, still closed").isOne();
		assertThat(work).isNotDone();
		completion.check(outcome.get());

		TemplateTestKernels.open(this.gate);
		assertThat(other.get(RETURNS_WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(work.get(RETURNS_WITHIN.toSeconds(), TimeUnit.SECONDS)).isNotNull();
		awaitSessionEndedAndStreamBack();
	}

	private CompletableFuture<KernelResult> heldWork(OffloadTemplate template) {
		return template.kernel(TemplateTestKernels.HOLD).threads(1).arg(this.gate).runAsync();
	}

	private void awaitSessionEndedAndStreamBack() {
		Device device = this.registry.device(0);
		Awaitility.await().atMost(RETURNS_WITHIN).until(() -> device.activeSessions() == 0);
		StreamPoolStatistics statistics = device.streamPool().statistics();
		assertThat(statistics.inUse()).isZero();
		assertThat(statistics.idle()).isEqualTo(statistics.size());
		assertThat(statistics.discarded()).isZero();
		assertThat(statistics.pendingCompletions()).isZero();
	}

	private static boolean isWaiting(Thread thread) {
		return thread != null
				&& (thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
	}

	private static void platformThread(Runnable task) {
		Thread thread = new Thread(task, "stage-waiter");
		thread.setDaemon(true);
		thread.start();
	}

	/** How the waited-for stage completes while the work is held. */
	enum Completion {

		OR_TIMEOUT {
			@Override
			void before(CompletableFuture<Object> stage) {
				stage.orTimeout(50, TimeUnit.MILLISECONDS);
			}

			@Override
			void check(Object outcome) {
				assertThat(outcome).isInstanceOf(TimeoutException.class);
			}
		},

		COMPLETE_ON_TIMEOUT {
			@Override
			void before(CompletableFuture<Object> stage) {
				stage.completeOnTimeout(FALLBACK, 50, TimeUnit.MILLISECONDS);
			}
		},

		CANCEL {
			@Override
			void during(CompletableFuture<Object> stage) {
				assertThat(stage.cancel(true)).isTrue();
			}

			@Override
			void check(Object outcome) {
				assertThat(outcome).isInstanceOf(CancellationException.class);
			}
		},

		COMPLETE {
			@Override
			void during(CompletableFuture<Object> stage) {
				assertThat(stage.complete(FALLBACK)).isTrue();
			}
		};

		/** Arranges the completion before the waiter waits (a timeout). */
		void before(CompletableFuture<Object> stage) {
		}

		/** Completes the stage once the waiter waits. */
		void during(CompletableFuture<Object> stage) {
		}

		/**
		 * Checks the waiter's outcome: the stage's value, or what it threw, unwrapped.
		 */
		void check(Object outcome) {
			assertThat(outcome).isEqualTo(FALLBACK);
		}

	}

	/** How the waiter waits for the stage. */
	enum Wait {

		JOIN {
			@Override
			Object value(CompletableFuture<?> stage) {
				return stage.join();
			}
		},

		GET {
			@Override
			Object value(CompletableFuture<?> stage) throws Exception {
				return stage.get();
			}
		},

		TIMED_GET {
			@Override
			Object value(CompletableFuture<?> stage) throws Exception {
				return stage.get(10, TimeUnit.MINUTES);
			}
		};

		abstract Object value(CompletableFuture<?> stage) throws Exception;

		/** Waits and returns the value, or the exception the wait threw, unwrapped. */
		Object outcome(CompletableFuture<?> stage) {
			try {
				return value(stage);
			}
			catch (CompletionException | ExecutionException ex) {
				return ex.getCause();
			}
			catch (Exception ex) {
				return ex;
			}
		}

	}

}
