package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.internal.completion.CompletionTuning;
import dev.offload.internal.completion.HeldExecutor;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The joiners of a session closed asynchronously: woken by the completion thread, or
 * finishing the session themselves as the joiner rules allow, and leaving the work as
 * soon as the stage they wait for completes otherwise; each session is ended once.
 */
class SessionJoinerTests {

	@Test
	void aLateJoinerShouldLeaveTheWorkToTheCompletionThreadWhileHalfTheProcessorsWaitInTheDriver() throws Exception {
		AtomicReference<String> closedOn = new AtomicReference<>();
		DeviceRegistry registry = registryNamingTheThreadThatClosesFirst(closedOn);
		Device device = registry.device(0);
		for (int i = 0; i < CompletionTuning.JOINERS_WOKEN; i++) {
			device.completions().joinerEnteredDriver();
		}
		try {
			// Past its brief wait, the joiner parks: with half the processors' worth of
			// joiners in the driver, it does not wait there too.
			joinHeldSessionOnceTheJoinerParks(device, 4711, "late-joiner");
			assertThat(closedOn.get()).isNotNull().isNotEqualTo("late-joiner");
		}
		finally {
			for (int i = 0; i < CompletionTuning.JOINERS_WOKEN; i++) {
				device.completions().joinerLeftDriver();
			}
			registry.close();
		}
	}

	@Test
	void aJoinerShouldFinishItsOwnSessionAtOnceWhileMoreSessionsAreOpenThanProcessors() throws Exception {
		AtomicReference<String> closedOn = new AtomicReference<>();
		DeviceRegistry registry = registryNamingTheThreadThatClosesFirst(closedOn);
		Device device = registry.device(0);
		// Late help declined: only help at once can finish the session on the joiner.
		for (int i = 0; i < CompletionTuning.JOINERS_WOKEN; i++) {
			device.completions().joinerEnteredDriver();
		}
		List<OffloadSession> open = new ArrayList<>();
		try {
			for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
				open.add(device.openSession());
			}
			joinHeldSessionOnceTheJoinerParks(device, 4712, "oversubscribed-joiner");
			assertThat(closedOn.get()).isEqualTo("oversubscribed-joiner");
		}
		finally {
			open.forEach(OffloadSession::close);
			for (int i = 0; i < CompletionTuning.JOINERS_WOKEN; i++) {
				device.completions().joinerLeftDriver();
			}
			registry.close();
		}
	}

	@Test
	void aJoinerWaitingForTheWorkItselfShouldLeaveItWhenItsDependentStageIsCompleted() throws Exception {
		joinerLeavesTheWorkWhenItsStageCompletes(4714, false, false);
	}

	@Test
	void aJoinerWaitingForTheWorkItselfShouldLeaveItWhenTheSessionsFutureIsCancelled() throws Exception {
		joinerLeavesTheWorkWhenItsStageCompletes(4715, true, false);
	}

	@Test
	void aJoinerFinishingItsOwnSessionAtOnceShouldLeaveTheWorkWhenItsDependentStageIsCompleted() throws Exception {
		joinerLeavesTheWorkWhenItsStageCompletes(4716, false, true);
	}

	/**
	 * Holds a session's work at {@code gate}, has a platform thread join its
	 * {@code closeAsync()} future (or a stage of it) and wait for the work itself, then
	 * completes that future from outside: the joiner returns with it while the work is
	 * still held, and the completion thread finishes the session once the work ends,
	 * giving its stream back and publishing the work's outcome to the other stages.
	 * @param onTheSessionsFuture whether the joiner joins the session's future itself
	 * (cancelled), else a stage of it (completed)
	 * @param atOnce whether the joiner takes the session at once (more sessions open than
	 * processors), else once its brief wait is over
	 */
	private static void joinerLeavesTheWorkWhenItsStageCompletes(int gate, boolean onTheSessionsFuture, boolean atOnce)
			throws Exception {
		AtomicReference<String> closedOn = new AtomicReference<>();
		DeviceRegistry registry = registryNamingTheThreadThatClosesFirst(closedOn);
		Device device = registry.device(0);
		int othersInDriver = atOnce ? CompletionTuning.JOINERS_WOKEN : 0;
		for (int i = 0; i < othersInDriver; i++) {
			device.completions().joinerEnteredDriver();
		}
		List<OffloadSession> open = new ArrayList<>();
		try {
			if (atOnce) {
				for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
					open.add(device.openSession());
				}
			}
			Kernel hold = device.loadModule(TestKernels.MODULE).kernel("hold");
			OffloadSession session = device.openSession();
			session.launch(hold, LaunchConfig.of(1, 1), gate);
			TestKernels.await(TestKernels.started(gate));
			CompletableFuture<Void> closing = session.closeAsync();
			CompletableFuture<String> other = closing.thenApply((ignored) -> "other");
			CompletableFuture<String> dependent = closing.thenApply((ignored) -> "closed");
			CompletableFuture<?> stage = onTheSessionsFuture ? closing : dependent;
			CompletableFuture<Object> joined = new CompletableFuture<>();
			Thread joiner = new Thread(() -> {
				try {
					joined.complete(stage.join());
				}
				catch (RuntimeException ex) {
					joined.complete(ex);
				}
			}, "leaving-joiner");
			joiner.setDaemon(true);
			joiner.start();
			// The joiner waits for the work itself.
			Awaitility.await().until(() -> device.completions().joinersInDriver() == othersInDriver + 1);
			if (onTheSessionsFuture) {
				assertThat(closing.cancel(true)).isTrue();
				assertThat(joined.get(30, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
			}
			else {
				assertThat(dependent.complete("caller")).isTrue();
				assertThat(joined.get(30, TimeUnit.SECONDS)).isEqualTo("caller");
			}
			assertThat(TestKernels.gate(gate).getCount()).as("the work's gate, still closed").isOne();
			Awaitility.await().until(() -> device.completions().joinersInDriver() == othersInDriver);
			assertThat(device.activeSessions()).isEqualTo(open.size() + 1);

			TestKernels.gate(gate).countDown();
			Awaitility.await().until(() -> device.activeSessions() == open.size());
			assertThat(closedOn.get()).isNotNull().isNotEqualTo("leaving-joiner");
			if (!onTheSessionsFuture) {
				assertThat(other.get(30, TimeUnit.SECONDS)).isEqualTo("other");
				assertThat(closing.get(30, TimeUnit.SECONDS)).isNull();
			}
			assertThat(device.streamPool().statistics().discarded()).isZero();
		}
		finally {
			TestKernels.gate(gate).countDown();
			open.forEach(OffloadSession::close);
			for (int i = 0; i < othersInDriver; i++) {
				device.completions().joinerLeftDriver();
			}
			registry.close();
		}
		assertThat(device.streamPool().inUse()).isZero();
	}

	@Test
	void sessionsClosedAsynchronouslyShouldEachBeFinishedOnceWhetherTheJoinerOrTheCompletionThreadWins()
			throws Exception {
		AtomicInteger closedReported = new AtomicInteger();
		DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).listener(new OffloadListener() {

			@Override
			public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
				closedReported.incrementAndGet();
			}

		}).build();
		ExecutorService joiners = Executors.newFixedThreadPool(4);
		try {
			Device device = registry.device(0);
			Kernel noop = device.loadModule(TestKernels.MODULE).kernel("noop");
			int each = 500;
			List<CompletableFuture<Void>> all = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				all.add(CompletableFuture.runAsync(() -> {
					for (int i = 0; i < each; i++) {
						OffloadSession session = device.openSession();
						session.reserveMemory(4096);
						session.launch(noop, LaunchConfig.of(1, 1));
						session.closeAsync().join();
					}
				}, joiners));
			}
			CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			// Each session ended once: its stream, its memory and its report.
			Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> device.completions().pending() == 0);
			assertThat(device.streamPool().inUse()).isZero();
			assertThat(device.memoryStatistics().usedBytes()).isZero();
			assertThat(closedReported).hasValue(4 * each);
		}
		finally {
			joiners.shutdownNow();
			registry.close(Duration.ofSeconds(5));
		}
	}

	@Test
	void closeAsyncJoinShouldReturnWithoutTheCompletionExecutor() throws Exception {
		HeldExecutor executor = new HeldExecutor();
		DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build())
			.completionExecutor(executor)
			.build();
		try {
			Device device = registry.device(0);
			Kernel noop = device.loadModule(TestKernels.MODULE).kernel("noop");
			OffloadSession session = device.openSession();
			session.launch(noop, LaunchConfig.of(1, 1));
			CompletableFuture<Void> closed = session.closeAsync();
			AtomicReference<String> ranOn = new AtomicReference<>();
			CompletableFuture<String> continuation = closed.thenApply((ignored) -> {
				ranOn.set(Thread.currentThread().getName());
				return "continued";
			});
			// The executor runs nothing until told: the joiner is woken by the completion
			// thread and runs the stage it waits for itself.
			assertThat(continuation.join()).isEqualTo("continued");
			assertThat(ranOn).hasValue(Thread.currentThread().getName());
			assertThat(closed).isDone();
			assertThat(device.streamPool().inUse()).isZero();
		}
		finally {
			executor.release();
			registry.close(Duration.ofSeconds(5));
		}
	}

	@Test
	void continuationsRegisteredAsTheWorkCompletesShouldNeverRunOnTheCompletionThread() {
		DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(1).build()).build();
		try {
			Device device = registry.device(0);
			Kernel noop = device.loadModule(TestKernels.MODULE).kernel("noop");
			Queue<String> threads = new ConcurrentLinkedQueue<>();
			List<CompletableFuture<?>> stages = new ArrayList<>();
			for (int i = 0; i < 5_000; i++) {
				OffloadSession session = device.openSession();
				session.launch(noop, LaunchConfig.of(1, 1));
				CompletableFuture<Void> closed = session.closeAsync();
				// Registered while the completion thread may be completing it: a direct
				// stage, a relay of allOf and a stage of a combination.
				stages.add(closed.thenRun(() -> threads.add(Thread.currentThread().getName())));
				stages
					.add(CompletableFuture.allOf(closed).thenRun(() -> threads.add(Thread.currentThread().getName())));
				stages.add(CompletableFuture.completedFuture(null)
					.thenCombine(closed, (a, b) -> threads.add(Thread.currentThread().getName())));
			}
			CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).join();
			assertThat(threads).hasSize(15_000).doesNotContain("offload-device0-completion");
		}
		finally {
			registry.close(Duration.ofSeconds(5));
		}
	}

	/**
	 * Builds a registry on the host backend whose listener records the name of the thread
	 * that ends the first session to close.
	 */
	private static DeviceRegistry registryNamingTheThreadThatClosesFirst(AtomicReference<String> closedOn) {
		return DeviceRegistry.builder(HostBackend.builder().build()).listener(new OffloadListener() {

			@Override
			public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
				closedOn.compareAndSet(null, Thread.currentThread().getName());
			}

		}).build();
	}

	/**
	 * Opens a session whose kernel holds at {@code gate}, closes it asynchronously, joins
	 * its future on a new thread named {@code joinerName}, releases the kernel once that
	 * thread parks, and returns when the joiner does, the future completed.
	 */
	private static void joinHeldSessionOnceTheJoinerParks(Device device, int gate, String joinerName)
			throws InterruptedException {
		Kernel hold = device.loadModule(TestKernels.MODULE).kernel("hold");
		OffloadSession session = device.openSession();
		session.launch(hold, LaunchConfig.of(1, 1), gate);
		TestKernels.await(TestKernels.started(gate));
		CompletableFuture<Void> closing = session.closeAsync();
		Thread joiner = new Thread(closing::join, joinerName);
		joiner.start();
		Awaitility.await().until(() -> joiner.getState() == Thread.State.WAITING);
		TestKernels.gate(gate).countDown();
		joiner.join();
		assertThat(closing).isCompleted();
	}

}
