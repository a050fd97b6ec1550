package dev.offload.internal.memory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.OffloadException;
import dev.offload.RoomFailures;
import dev.offload.internal.ThreadStripes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The striped budget: credit that stripes lease from the reservation never makes anyone
 * wait, the bound holds under concurrent admission, and the statistics come back to their
 * baseline.
 */
class MemoryBudgetTests {

	/** The budget's priority classes. */
	private static final boolean NORMAL = false;

	private static final boolean HIGH = true;

	private static final long KIB = 1024;

	private static final long MIB = 1024 * KIB;

	private static final int STRIPES = 4;

	private static final long NO_WAIT = 0;

	private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(60);

	@Test
	void uncontendedBudgetShouldAdmitFromTheReservationWithAnExactPeak() {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, false, RoomFailures.memory());
		budget.acquire(MIB, NORMAL, NO_WAIT, null);
		budget.acquire(3 * MIB, NORMAL, NO_WAIT, null);
		budget.release(MIB);
		budget.release(3 * MIB);
		assertThat(budget.peakBytes()).isEqualTo(4 * MIB);
		assertThat(budget.reservedBytes()).isZero();
		assertThat(budget.idleCreditBytes()).isZero();
	}

	@Test
	void stripedBudgetShouldKeepALeaseOfCreditAndCountItInTheReservedPeakOnly() {
		// A lease is 64 MiB / (8 × 4 stripes) = 2 MiB.
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
		budget.acquire(MIB, NORMAL, NO_WAIT, null);
		assertThat(budget.usedBytes()).isEqualTo(MIB);
		assertThat(budget.reservedBytes()).isEqualTo(3 * MIB);
		budget.release(MIB);
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.idleCreditBytes()).isEqualTo(2 * MIB);
		// The reservation's high-water counts the idle credit; the peak in use does not.
		assertThat(budget.reservedPeakBytes()).isEqualTo(3 * MIB);
		assertThat(budget.peakBytes()).isEqualTo(MIB);
		budget.acquire(2 * MIB, NORMAL, NO_WAIT, null);
		assertThat(budget.reservedBytes()).as("taken from the stripe's credit").isEqualTo(2 * MIB);
		budget.release(2 * MIB);
		assertThat(budget.usedBytes()).isZero();
	}

	@Test
	void unlimitedBudgetShouldLeaseSharesOfTheDevicesMemory() {
		MemoryBudget budget = new MemoryBudget(0, Long.MAX_VALUE, 64 * MIB, STRIPES, true, RoomFailures.memory());
		budget.acquire(MIB, NORMAL, NO_WAIT, null);
		budget.release(MIB);
		assertThat(budget.idleCreditBytes()).isEqualTo(2 * MIB);
		assertThat(budget.reservedPeakBytes()).isEqualTo(3 * MIB);
		assertThat(budget.peakBytes()).isEqualTo(MIB);
		assertThat(budget.usedBytes()).isZero();
	}

	@Test
	void peakWhenEveryStripeHoldsIdleCreditShouldBeTheMostInUseAtOnce() throws Exception {
		// A lease is 8 GiB / (8 × 4 stripes) = 256 MiB: each stripe that admits a small
		// request keeps about that much idle, as an H200's stripes keep about 1 GiB each.
		long budgetBytes = 8L * 1024 * MIB;
		MemoryBudget budget = new MemoryBudget(0, budgetBytes, budgetBytes, STRIPES, true, RoomFailures.memory());
		budget.acquire(MIB, NORMAL, NO_WAIT, null);
		for (int i = 0; i < 3; i++) {
			runOnAnotherStripe(() -> {
				budget.acquire(2 * MIB, NORMAL, NO_WAIT, null);
				budget.release(2 * MIB);
			});
		}
		budget.acquire(2 * MIB, NORMAL, NO_WAIT, null);
		budget.release(2 * MIB);
		budget.release(MIB);
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.idleCreditBytes()).as("the stripes' idle credit").isGreaterThanOrEqualTo(256 * MIB);
		assertThat(budget.reservedPeakBytes()).as("the reservation's high-water, idle credit included")
			.isGreaterThan(256 * MIB);
		// At most 1 MiB and 2 MiB were in use at once, never more.
		assertThat(budget.peakBytes()).isEqualTo(3 * MIB);
		// A later rise above it is counted, from whichever stripe it comes.
		budget.acquire(3 * MIB, NORMAL, NO_WAIT, null);
		runOnAnotherStripe(() -> budget.acquire(MIB, NORMAL, NO_WAIT, null));
		assertThat(budget.peakBytes()).isEqualTo(4 * MIB);
		budget.release(3 * MIB);
		budget.release(MIB);
		assertThat(budget.peakBytes()).isEqualTo(4 * MIB);
		assertThat(budget.usedBytes()).isZero();
	}

	@Test
	void requestWhenAnotherStripeHoldsTheCreditItNeedsShouldReclaimItInsteadOfWaiting() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
		budget.acquire(62 * MIB, NORMAL, NO_WAIT, null);
		// Another stripe takes 1 MiB and gives it back: it keeps it as idle credit.
		runOnAnotherStripe(() -> {
			budget.acquire(MIB, NORMAL, NO_WAIT, null);
			budget.release(MIB);
		});
		assertThat(budget.idleCreditBytes()).isEqualTo(MIB);
		assertThat(budget.usedBytes()).isEqualTo(62 * MIB);
		// 2 MiB fit only with that credit: admitted at once, with no time to wait.
		budget.acquire(2 * MIB, NORMAL, NO_WAIT, null);
		assertThat(budget.usedBytes()).isEqualTo(64 * MIB);
		assertThat(budget.reservedBytes()).isEqualTo(64 * MIB);
		assertThat(budget.waitTimeouts()).isZero();
		budget.release(2 * MIB);
		budget.release(62 * MIB);
		assertThat(budget.usedBytes()).isZero();
	}

	@Test
	void largeRequestWhenStripesHoldIdleCreditShouldCountItAsFreeForTheEighthItLeaves() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
		runOnAnotherStripe(() -> {
			budget.acquire(MIB, NORMAL, NO_WAIT, null);
			budget.release(MIB);
		});
		assertThat(budget.idleCreditBytes()).isEqualTo(2 * MIB);
		// Nothing is in use: the whole budget is admitted to one large request.
		budget.acquire(64 * MIB, NORMAL, NO_WAIT, null);
		assertThat(budget.idleCreditBytes()).isZero();
		budget.release(64 * MIB);
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.reservedBytes()).isZero();
	}

	@Test
	void aSmallWaiterShouldBeAdmittedPastALargerOneThatDoesNotFit() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, false, RoomFailures.memory());
		budget.acquire(60 * MIB, NORMAL, NO_WAIT, null);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<?> large = threads.submit(() -> budget.acquire(8 * MIB, NORMAL, LONG_WAIT, null));
			await().atMost(Duration.ofSeconds(30)).until(() -> budget.waiting() == 1);
			// 4 MiB are free: the small request fits though the large one still waits.
			threads.submit(() -> budget.acquire(2 * MIB, NORMAL, LONG_WAIT, null)).get(30, TimeUnit.SECONDS);
			assertThat(budget.waiting()).isEqualTo(1);
			assertThat(large).isNotDone();
			budget.release(60 * MIB);
			large.get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdown();
		}
		assertThat(budget.usedBytes()).isEqualTo(10 * MIB);
	}

	@Test
	void releaseWhenSomeoneWaitsShouldAdmitTheWaiterRatherThanKeepTheCredit() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
		budget.acquire(62 * MIB, NORMAL, NO_WAIT, null);
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch giveBack = new CountDownLatch(1);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<?> holder = threads.submit(() -> {
				budget.acquire(MIB, NORMAL, NO_WAIT, null);
				holding.countDown();
				awaitLatch(giveBack);
				budget.release(MIB);
			});
			holding.await();
			Future<?> waiter = threads.submit(() -> budget.acquire(2 * MIB, NORMAL, LONG_WAIT, null));
			await().atMost(Duration.ofSeconds(30)).until(() -> budget.waiting() == 1);
			// The holder gives its 1 MiB back while the waiter waits: not to its stripe.
			giveBack.countDown();
			holder.get(30, TimeUnit.SECONDS);
			waiter.get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdown();
		}
		assertThat(budget.usedBytes()).isEqualTo(64 * MIB);
		assertThat(budget.waiting()).isZero();
		budget.release(2 * MIB);
		budget.release(62 * MIB);
		assertThat(budget.usedBytes()).isZero();
	}

	@Test
	void releaseRacingAnArrivingWaiterShouldNeverLeaveItWaitingBehindIdleCredit() throws Exception {
		// Each round, one thread gives back 1 MiB (to its stripe while nobody waits) as
		// another asks for 1 MiB of a full budget and starts to wait: whichever comes
		// first, the waiter gets the MiB (from the reclaimed credit, or from the release
		// that saw it wait, or the thread that put credit on its stripe gives it back).
		CyclicBarrier start = new CyclicBarrier(2);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 10_000; round++) {
				MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
				budget.acquire(63 * MIB, NORMAL, NO_WAIT, null);
				budget.acquire(MIB, NORMAL, NO_WAIT, null);
				Future<?> releaser = threads.submit(() -> {
					awaitBarrier(start);
					budget.release(MIB);
				});
				Future<?> waiter = threads.submit(() -> {
					awaitBarrier(start);
					budget.acquire(MIB, NORMAL, LONG_WAIT, null);
				});
				releaser.get(30, TimeUnit.SECONDS);
				waiter.get(LONG_WAIT + TimeUnit.SECONDS.toNanos(30), TimeUnit.NANOSECONDS);
				assertThat(budget.waitTimeouts()).isZero();
				assertThat(budget.usedBytes()).isEqualTo(64 * MIB);
				assertThat(budget.waiting()).isZero();
			}
		}
		finally {
			threads.shutdown();
		}
	}

	@Test
	void concurrentAdmissionShouldNeverExceedTheBudgetAndShouldGiveEverythingBack() throws Exception {
		long budgetBytes = 16 * MIB;
		// A lease is 512 KiB: most requests go through the stripes, some are large.
		MemoryBudget budget = new MemoryBudget(0, budgetBytes, budgetBytes, STRIPES, true, RoomFailures.memory());
		AtomicLong held = new AtomicLong();
		AtomicLong mostHeld = new AtomicLong();
		AtomicLong mostReserved = new AtomicLong();
		AtomicLong refused = new AtomicLong();
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int seed = t;
				done.add(pool.submit(() -> {
					SplittableRandom random = new SplittableRandom(seed);
					ArrayDeque<Long> mine = new ArrayDeque<>();
					for (int i = 0; i < 5_000; i++) {
						if (mine.size() < 8 && random.nextInt(3) > 0) {
							long bytes = (random.nextInt(20) == 0) ? 3 * MIB : 1 + random.nextLong(512 * KIB);
							try {
								budget.acquire(bytes, random.nextBoolean() ? HIGH : NORMAL,
										TimeUnit.MILLISECONDS.toNanos(5), null);
							}
							catch (MemoryBudgetExceededException ex) {
								refused.incrementAndGet();
								continue;
							}
							// Counted after admission and before release: never above the
							// bytes the budget admitted.
							mostHeld.accumulateAndGet(held.addAndGet(bytes), Math::max);
							mostReserved.accumulateAndGet(budget.reservedBytes(), Math::max);
							mine.push(bytes);
						}
						else if (!mine.isEmpty()) {
							long bytes = mine.pop();
							held.addAndGet(-bytes);
							budget.release(bytes);
						}
					}
					while (!mine.isEmpty()) {
						long bytes = mine.pop();
						held.addAndGet(-bytes);
						budget.release(bytes);
					}
					return null;
				}));
			}
			for (Future<?> each : done) {
				each.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdown();
		}
		assertThat(mostHeld.get()).isLessThanOrEqualTo(budgetBytes);
		assertThat(mostReserved.get()).isLessThanOrEqualTo(budgetBytes);
		assertThat(budget.peakBytes()).isLessThanOrEqualTo(budgetBytes);
		assertThat(budget.reservedPeakBytes()).isLessThanOrEqualTo(budgetBytes);
		// Never below what the threads held at once (counted after admission, before
		// release).
		assertThat(budget.peakBytes()).isGreaterThanOrEqualTo(mostHeld.get());
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.waiting()).isZero();
		assertThat(budget.reservedBytes()).isEqualTo(budget.idleCreditBytes());
		assertThat(budget.idleCreditBytes()).isLessThanOrEqualTo(budgetBytes / 8);
		// The idle credit is anyone's: the whole budget is admitted at once.
		budget.acquire(budgetBytes, NORMAL, NO_WAIT, null);
		budget.release(budgetBytes);
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.reservedBytes()).isZero();
	}

	@Test
	void waitWhenItEndsOrIsInterruptedShouldLeaveTheStatisticsAtTheirBaseline() throws Exception {
		MemoryBudget budget = new MemoryBudget(0, 64 * MIB, 64 * MIB, STRIPES, true, RoomFailures.memory());
		budget.acquire(63 * MIB, NORMAL, NO_WAIT, null);
		assertThatExceptionOfType(MemoryBudgetExceededException.class)
			.isThrownBy(() -> budget.acquire(2 * MIB, NORMAL, NO_WAIT, null));
		assertThat(budget.waitTimeouts()).isEqualTo(1);
		Thread interrupted = new Thread(() -> {
			try {
				budget.acquire(2 * MIB, HIGH, LONG_WAIT, null);
			}
			catch (OffloadException expected) {
				// Interrupted while waiting.
			}
		});
		interrupted.start();
		await().atMost(Duration.ofSeconds(30)).until(() -> budget.waiting() == 1);
		interrupted.interrupt();
		interrupted.join();
		assertThat(budget.waiting()).isZero();
		assertThat(budget.usedBytes()).isEqualTo(63 * MIB);
		budget.release(63 * MIB);
		assertThat(budget.usedBytes()).isZero();
		assertThat(budget.reservedBytes()).isEqualTo(budget.idleCreditBytes());
	}

	/**
	 * Runs {@code body} on a thread of a stripe other than the calling thread's, and
	 * waits for it.
	 */
	private static void runOnAnotherStripe(Runnable body) throws Exception {
		int mine = ThreadStripes.current(STRIPES);
		CompletableFuture<Void> done = new CompletableFuture<>();
		Runnable run = () -> {
			try {
				body.run();
				done.complete(null);
			}
			catch (RuntimeException | Error ex) {
				done.completeExceptionally(ex);
			}
		};
		Thread thread = new Thread(run);
		while (ThreadStripes.stripe(thread.getId(), STRIPES) == mine) {
			thread = new Thread(run);
		}
		thread.start();
		done.get(30, TimeUnit.SECONDS);
	}

	private static void awaitBarrier(CyclicBarrier barrier) {
		try {
			barrier.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (BrokenBarrierException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
