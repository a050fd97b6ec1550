package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The futures of asynchronous completion: waiters woken by the completion thread,
 * dependent stages run on the completion executor only.
 */
class CompletionFutureTests {

	@Test
	void settlingShouldWakeAJoinerWithoutRunningADependentStage() throws Exception {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		AtomicReference<String> ranOn = new AtomicReference<>();
		CompletableFuture<Void> dependent = future.thenAccept((value) -> ranOn.set(Thread.currentThread().getName()));
		CompletableFuture<String> joined = CompletableFuture.supplyAsync(future::join);
		Thread settler = new Thread(() -> future.settle("done", null), "settler");
		settler.start();
		settler.join();
		assertThat(joined.get(30, TimeUnit.SECONDS)).isEqualTo("done");
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
	void aPlatformThreadThatJoinsShouldRunTheHelperInsteadOfWaitingToBeWoken() {
		HeldExecutor executor = new HeldExecutor();
		CompletionFuture<String> future = new CompletionFuture<>(executor);
		AtomicReference<String> helpedOn = new AtomicReference<>();
		future.helpWith(() -> {
			helpedOn.set(Thread.currentThread().getName());
			future.settle("helped", null);
		});
		// Nobody else settles it: without the helper, join() would wait for ever.
		assertThat(future.join()).isEqualTo("helped");
		assertThat(helpedOn).hasValue(Thread.currentThread().getName());
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
		assertThatExceptionOfType(CompletionException.class).isThrownBy(future::join).withCause(failure);
		assertThat(recovered).isNotDone();
		future.publish();
		assertThat(recovered.join()).isEqualTo("failed on purpose");
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
	void closeAsyncJoinShouldReturnBeforeTheCompletionExecutorRunsAnything() throws Exception {
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
			CompletableFuture<Void> continuation = closed.thenRun(() -> ranOn.set(Thread.currentThread().getName()));
			// The executor runs nothing until told: the joiner is woken by the
			// completion thread.
			closed.join();
			assertThat(continuation).isNotDone();
			assertThat(device.streamPool().inUse()).isZero();
			// The completion thread hands the publication to the executor after it wakes
			// the joiner: wait until it has.
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(executor::holdsAny);
			executor.runHeld("app-continuations");
			continuation.get(30, TimeUnit.SECONDS);
			assertThat(ranOn).hasValue("app-continuations");
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

}
