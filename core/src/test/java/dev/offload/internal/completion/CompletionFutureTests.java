package dev.offload.internal.completion;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

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

}
