package dev.offload.sample.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link FairJobQueue}: a tenant alone uses every slot; against tenants that
 * flood the queue, a polite tenant's jobs start in its turn (one slot in five against
 * four); a tenant's queue is bounded without touching the others'; a busy device delays a
 * queued job, it does not lose it. Queued jobs start on the thread that frees a slot (a
 * direct dispatcher), so every step is deterministic.
 */
class FairJobQueueTests {

	private static final Duration NO_DELAY = Duration.ofMillis(1);

	/** The tenant of each job started, in order. */
	private final List<String> starts = Collections.synchronizedList(new ArrayList<>());

	/** The running jobs' futures, oldest first. */
	private final List<CompletableFuture<String>> running = Collections.synchronizedList(new ArrayList<>());

	private final FairJobQueue<String> queue = new FairJobQueue<>(4, 16, Busy.class::isInstance, Busy.class::isInstance,
			Runnable::run, NO_DELAY);

	private Supplier<CompletableFuture<String>> job(String tenant) {
		return () -> {
			CompletableFuture<String> future = new CompletableFuture<>();
			this.starts.add(tenant);
			this.running.add(future);
			return future;
		};
	}

	private void endOldest() {
		CompletableFuture<String> oldest = this.running.remove(0);
		oldest.complete("done");
	}

	@Test
	void tenantAloneShouldUseEverySlotAndQueueTheRest() {
		List<FairJobQueue.Job<String>> jobs = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			jobs.add(this.queue.submit("alone", job("alone")));
		}
		assertThat(jobs).extracting(FairJobQueue.Job::started).containsExactly(true, true, true, true, false, false);
		assertThat(this.queue.running("alone")).isEqualTo(4);
		assertThat(this.queue.queued("alone")).isEqualTo(2);
		endOldest();
		assertThat(jobs.get(4).started()).isTrue();
		assertThat(jobs.get(0).result()).isCompletedWithValue("done");
	}

	@Test
	void politeTenantShouldGetOneSlotInFiveAgainstFourFloodingAddresses() {
		for (int address = 1; address <= 4; address++) {
			String flooder = TenantKey.address("10.0.0." + address);
			for (int i = 0; i < 16; i++) {
				this.queue.submit(flooder, job(flooder));
			}
		}
		String polite = TenantKey.address("10.0.0.9");
		List<FairJobQueue.Job<String>> politeJobs = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			politeJobs.add(this.queue.submit(polite, job(polite)));
		}
		// The first flooder took the four slots before anyone queued.
		assertThat(this.starts).hasSize(4).containsOnly(TenantKey.address("10.0.0.1"));
		for (int freed = 0; freed < 15; freed++) {
			endOldest();
		}
		List<String> dispatched = this.starts.subList(4, 19);
		for (int round = 0; round < 3; round++) {
			// Five tenants queued: each gets one of every five slots freed.
			assertThat(dispatched.subList(5 * round, 5 * round + 5)).as("round %d", round)
				.containsOnlyOnce(polite)
				.doesNotHaveDuplicates();
		}
		assertThat(politeJobs).allMatch(FairJobQueue.Job::started);
		assertThat(this.queue.queued(polite)).isZero();
	}

	@Test
	void tenantWhoseQueueIsFullShouldGet429WhileOthersStillQueue() {
		FairJobQueue<String> small = new FairJobQueue<>(1, 2, Busy.class::isInstance, Busy.class::isInstance,
				Runnable::run, NO_DELAY);
		small.submit("flood", job("flood"));
		small.submit("flood", job("flood"));
		small.submit("flood", job("flood"));
		assertThatExceptionOfType(TooManyJobsException.class).isThrownBy(() -> small.submit("flood", job("flood")))
			.withMessageContaining("flood");
		FairJobQueue.Job<String> polite = small.submit("polite", job("polite"));
		assertThat(polite.started()).isFalse();
		endOldest();
		assertThat(polite.started()).isTrue();
		assertThat(small.queued("flood")).isEqualTo(2);
	}

	@Test
	void jobRefusedWhenItStartsAtOnceShouldBeThrownAndFreeItsSlot() {
		Busy busy = new Busy();
		assertThatExceptionOfType(Busy.class)
			.isThrownBy(() -> this.queue.submit("tenant", () -> CompletableFuture.failedFuture(busy)));
		assertThat(this.queue.running("tenant")).isZero();
		for (int i = 0; i < 4; i++) {
			assertThat(this.queue.submit("tenant", job("tenant")).started()).isTrue();
		}
	}

	@Test
	void queuedJobRefusedWhileTheDeviceIsBusyShouldStartOnceItIsNot() {
		for (int i = 0; i < 4; i++) {
			this.queue.submit("first", job("first"));
		}
		AtomicInteger refusals = new AtomicInteger(3);
		FairJobQueue.Job<String> queued = this.queue.submit("second", () -> {
			if (refusals.getAndDecrement() > 0) {
				return CompletableFuture.failedFuture(new Busy());
			}
			return job("second").get();
		});
		endOldest();
		await().atMost(Duration.ofSeconds(30)).until(queued::started);
		assertThat(refusals.get()).isNegative();
		assertThat(this.starts).containsOnlyOnce("second");
	}

	@Test
	void queuedJobRefusedForGoodShouldFailNotWait() {
		FairJobQueue<String> small = new FairJobQueue<>(1, 16, (ex) -> true, Busy.class::isInstance, Runnable::run,
				NO_DELAY);
		small.submit("first", job("first"));
		FairJobQueue.Job<String> queued = small.submit("second",
				() -> CompletableFuture.failedFuture(new IllegalStateException("closed")));
		endOldest();
		assertThat(queued.result()).isCompletedExceptionally();
		assertThat(queued.started()).isFalse();
		assertThat(small.running("second")).isZero();
		assertThat(small.submit("third", job("third")).started()).isTrue();
	}

	@Test
	void closeShouldFailTheQueuedJobsAndLetTheRunningOnesEnd() {
		for (int i = 0; i < 4; i++) {
			this.queue.submit("first", job("first"));
		}
		FairJobQueue.Job<String> queued = this.queue.submit("second", job("second"));
		this.queue.close();
		assertThat(queued.result()).isCompletedExceptionally();
		endOldest();
		assertThat(this.starts).doesNotContain("second");
		assertThat(this.queue.running("first")).isEqualTo(3);
		assertThatExceptionOfType(ShedException.class).isThrownBy(() -> this.queue.submit("third", job("third")));
	}

	/**
	 * The device's refusal that passes: a full lane, pool or memory budget.
	 */
	static final class Busy extends RuntimeException {

	}

}
