package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The futures of asynchronous completion: waiters woken by the completion thread and
 * publishing on their own threads, dependent stages never run on the completion thread.
 */
class CompletionFutureTests {

	@Test
	void settlingShouldWakeAJoinerWithoutRunningADependentStage() throws Exception {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		AtomicReference<String> ranOn = new AtomicReference<>();
		CompletableFuture<Void> dependent = future.thenAccept((value) -> ranOn.set(Thread.currentThread().getName()));
		Thread settler = new Thread(() -> future.settle("done", null), "settler");
		settler.start();
		settler.join();
		assertThat(future).isDone();
		assertThat(future.getNow("absent")).isEqualTo("done");
		assertThat(ranOn).hasNullValue();
		assertThat(dependent).isNotDone();
		Thread publisher = new Thread(future::publish, "publisher");
		publisher.start();
		publisher.join();
		assertThat(dependent).isDone();
		assertThat(ranOn).hasValue("publisher");
	}

	@Test
	void aJoinerShouldPublishTheOutcomeOnItsOwnThread() throws Exception {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		AtomicReference<String> ranOn = new AtomicReference<>();
		CompletableFuture<Void> dependent = future.thenAccept((value) -> ranOn.set(Thread.currentThread().getName()));
		CountDownLatch joining = new CountDownLatch(1);
		AtomicReference<String> joined = new AtomicReference<>();
		Thread joiner = new Thread(() -> {
			joining.countDown();
			joined.set(future.join());
		}, "joiner");
		joiner.start();
		joining.await();
		future.settle("done", null);
		joiner.join();
		// The executor holds its tasks: the joiner ran the dependent stage itself.
		assertThat(joined).hasValue("done");
		assertThat(dependent).isDone();
		assertThat(ranOn).hasValue("joiner");
		assertThat(executor.holdsAny()).isFalse();
	}

	@Test
	void aThreadWaitingForADependentStageShouldRunTheStagesLeadingToItItself() throws Exception {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		CompletableFuture<String> thread = future
			.thenApply((value) -> value + " on " + Thread.currentThread().getName())
			.thenApply(String::toUpperCase);
		CompletableFuture<String> made = future.newIncompleteFuture();
		future.whenComplete((value, failure) -> made.complete(value + " relayed"));
		future.settle("done", null);
		assertThat(thread.join()).isEqualTo("DONE ON " + Thread.currentThread().getName().toUpperCase());
		assertThat(made.get()).isEqualTo("done relayed");
		assertThat(executor.holdsAny()).isFalse();
	}

	@Test
	void eachStageShouldRunOnceWhenJoinersAndTheExecutorPublishAtOnce() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try {
			for (int round = 0; round < 2_000; round++) {
				CompletionFuture<Integer> future = new CompletionFuture<>(threads);
				AtomicInteger ran = new AtomicInteger();
				CompletableFuture<Integer> stage = future.thenApply((value) -> ran.incrementAndGet() + value);
				CountDownLatch go = new CountDownLatch(1);
				CompletableFuture<Integer> firstJoiner = CompletableFuture.supplyAsync(() -> {
					awaitQuietly(go);
					return stage.join();
				}, threads);
				CompletableFuture<Integer> secondJoiner = CompletableFuture.supplyAsync(() -> {
					awaitQuietly(go);
					return future.join();
				}, threads);
				future.settle(10, null);
				go.countDown();
				// The executor's publication, as the completion thread hands it over.
				future.publish();
				assertThat(firstJoiner.get(30, TimeUnit.SECONDS)).isEqualTo(11);
				assertThat(secondJoiner.get(30, TimeUnit.SECONDS)).isEqualTo(10);
				assertThat(ran).hasValue(1);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void aTimedWaitForADependentStageShouldTimeOutWhileTheOutcomeIsPending() {
		CompletionFuture<String> future = new CompletionFuture<>(Runnable::run);
		CompletableFuture<String> dependent = future.thenApply(String::toUpperCase);
		assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> dependent.get(1, TimeUnit.MILLISECONDS));
		future.settle("done", null);
		assertThat(dependent.getNow("absent")).isEqualTo("absent");
		assertThat(dependent.join()).isEqualTo("DONE");
	}

	@Test
	void aBoundedFutureShouldWaitForTheSourceOnlyUntilItsDeadline() {
		CompletionFuture<String> future = new CompletionFuture<>(Runnable::run);
		AtomicInteger helped = new AtomicInteger();
		// A helper that never settles: a bounded waiter must not run it (it would wait in
		// the driver past the deadline).
		future.helpWith((late, awaited) -> helped.incrementAndGet());
		CompletableFuture<String> bounded = CompletionFuture.newBoundedFuture(future, System.nanoTime());
		Thread timer = new Thread(() -> bounded.completeExceptionally(new IllegalStateException("deadline")));
		timer.start();
		assertThatExceptionOfType(CompletionException.class).isThrownBy(bounded::join)
			.withCauseInstanceOf(IllegalStateException.class);
		assertThat(helped).hasValue(0);
		assertThat(future).isNotDone();
		CompletableFuture<String> onTime = CompletionFuture.newBoundedFuture(future.thenApply(String::trim),
				System.nanoTime() + TimeUnit.MINUTES.toNanos(10));
		future.thenApply(String::toUpperCase).whenComplete((value, failure) -> onTime.complete(value));
		future.settle("done", null);
		assertThat(onTime.join()).isEqualTo("DONE");
		assertThat(CompletionFuture.newBoundedFuture(new CompletableFuture<>(), 0))
			.isNotInstanceOf(CompletionFuture.Dependent.class);
	}

	@Test
	void aPlatformThreadThatJoinsShouldRunTheHelperInsteadOfWaitingToBeWoken() {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		AtomicReference<String> helpedOn = new AtomicReference<>();
		future.helpWith((late, awaited) -> {
			helpedOn.set(Thread.currentThread().getName());
			future.settle("helped", null);
		});
		// Nobody else settles it: without the helper, join() would wait for ever.
		assertThat(future.join()).isEqualTo("helped");
		assertThat(helpedOn).hasValue(Thread.currentThread().getName());
	}

	@Test
	void aJoinerStillWaitingAfterItsBriefWaitShouldBeOfferedToHelpAgain() {
		CompletionFuture<String> future = new CompletionFuture<>(new HeldExecutor());
		List<Boolean> offers = new CopyOnWriteArrayList<>();
		// Declines at first (the completion thread would wake it), helps once late: long
		// work, which the joiner had better wait for itself.
		future.helpWith((late, awaited) -> {
			offers.add(late);
			if (late) {
				future.settle("helped late", null);
			}
		});
		// On a thread of its own: a joiner not offered to help again would wait for ever.
		CompletableFuture<String> joined = new CompletableFuture<>();
		Thread joiner = new Thread(() -> joined.complete(future.join()));
		joiner.setDaemon(true);
		joiner.start();
		Awaitility.await().until(joined::isDone);
		assertThat(joined.join()).isEqualTo("helped late");
		assertThat(offers).containsExactly(false, true);
	}

	@Test
	void aLateJoinerShouldLeaveTheWorkToTheCompletionThreadWhileHalfTheProcessorsWaitInTheDriver() throws Exception {
		AtomicReference<String> closedOn = new AtomicReference<>();
		DeviceRegistry registry = registryNamingTheThreadThatClosesFirst(closedOn);
		Device device = registry.device(0);
		for (int i = 0; i < OffloadSession.JOINERS_WOKEN; i++) {
			device.joinerInDriver();
		}
		try {
			// Past its brief wait, the joiner parks: with half the processors' worth of
			// joiners in the driver, it does not wait there too.
			joinHeldSessionOnceTheJoinerParks(device, 4711, "late-joiner");
			assertThat(closedOn.get()).isNotNull().isNotEqualTo("late-joiner");
		}
		finally {
			for (int i = 0; i < OffloadSession.JOINERS_WOKEN; i++) {
				device.joinerLeftDriver();
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
		for (int i = 0; i < OffloadSession.JOINERS_WOKEN; i++) {
			device.joinerInDriver();
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
			for (int i = 0; i < OffloadSession.JOINERS_WOKEN; i++) {
				device.joinerLeftDriver();
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
		int othersInDriver = atOnce ? OffloadSession.JOINERS_WOKEN : 0;
		for (int i = 0; i < othersInDriver; i++) {
			device.joinerInDriver();
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
			Awaitility.await().until(() -> device.joinersInDriver() == othersInDriver + 1);
			if (onTheSessionsFuture) {
				assertThat(closing.cancel(true)).isTrue();
				assertThat(joined.get(30, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
			}
			else {
				assertThat(dependent.complete("caller")).isTrue();
				assertThat(joined.get(30, TimeUnit.SECONDS)).isEqualTo("caller");
			}
			assertThat(TestKernels.gate(gate).getCount()).as("the work's gate, still closed").isOne();
			Awaitility.await().until(() -> device.joinersInDriver() == othersInDriver);
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
				device.joinerLeftDriver();
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
			Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> device.pendingCompletions() == 0);
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
	void completingFromOutsideShouldDecideTheOutcomeOnce() {
		CompletionFuture<String> future = new CompletionFuture<>(Runnable::run);
		AtomicReference<String> seen = new AtomicReference<>();
		future.thenAccept(seen::set);
		assertThat(future.complete("caller")).isTrue();
		assertThat(seen).hasValue("caller");
		assertThat(future.settle("device", null)).isFalse();
		future.publish();
		assertThat(future.join()).isEqualTo("caller");
	}

	@Test
	void cancellingShouldWakeAJoinerWithTheCancellation() throws Exception {
		CompletionFuture<String> future = new CompletionFuture<>(Runnable::run);
		CountDownLatch joining = new CountDownLatch(1);
		CompletableFuture<Throwable> joined = CompletableFuture.supplyAsync(() -> {
			joining.countDown();
			try {
				future.join();
				return null;
			}
			catch (CancellationException ex) {
				return ex;
			}
		});
		joining.await();
		assertThat(future.cancel(false)).isTrue();
		assertThat(joined.get(30, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
		assertThat(future.isCancelled()).isTrue();
		assertThat(future.settle("device", null)).isFalse();
	}

	@Test
	void aFailureSettledShouldReachJoinersAndDependents() {
		CompletionFuture<String> future = new CompletionFuture<>(Runnable::run);
		IllegalStateException failure = new IllegalStateException("failed on purpose");
		CompletableFuture<String> recovered = future.exceptionally(Throwable::getMessage);
		future.settle(null, failure);
		assertThat(future.isCompletedExceptionally()).isTrue();
		assertThat(recovered).isNotDone();
		// The joiner publishes the failure, which runs the dependent stage.
		assertThatExceptionOfType(CompletionException.class).isThrownBy(future::join).withCause(failure);
		assertThat(recovered.join()).isEqualTo("failed on purpose");
		CompletionFuture<String> another = new CompletionFuture<>(Runnable::run);
		CompletableFuture<String> upper = another.thenApply(String::toUpperCase);
		another.settle(null, failure);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(upper::get).withCause(failure);
	}

	@Test
	void asyncStagesWithoutAnExecutorShouldRunOnTheCompletionExecutor() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor((task) -> new Thread(task, "app-continuations"));
		try {
			CompletionFuture<String> future = new CompletionFuture<>(executor);
			CompletableFuture<String> thread = future.thenApplyAsync((value) -> Thread.currentThread().getName());
			future.complete("done");
			assertThat(thread.get(30, TimeUnit.SECONDS)).isEqualTo("app-continuations");
		}
		finally {
			executor.shutdownNow();
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
	 * An executor that holds its tasks until a thread runs them.
	 */
	private static final class HeldExecutor implements java.util.concurrent.Executor {

		private final LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();

		private volatile boolean released;

		@Override
		public void execute(Runnable task) {
			if (this.released) {
				task.run();
			}
			else {
				this.held.add(task);
			}
		}

		/**
		 * Runs the held tasks, and those they hand on, on a thread named {@code name}.
		 */
		void runHeld(String name) throws InterruptedException {
			Thread runner = new Thread(() -> {
				Runnable task;
				while ((task = this.held.poll()) != null) {
					task.run();
				}
			}, name);
			runner.start();
			runner.join();
		}

		boolean holdsAny() {
			return !this.held.isEmpty();
		}

		void release() {
			this.released = true;
			Runnable task;
			while ((task = this.held.poll()) != null) {
				task.run();
			}
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
