package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.offload.sample.pricing.MonteCarloResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link MonteCarloJobs}: running jobs stay, finished ones stay for the
 * retention whatever the churn, and a full store refuses new jobs instead of evicting.
 */
class MonteCarloJobsTests {

	private final MutableClock clock = new MutableClock();

	private final MonteCarloJobs jobs = new MonteCarloJobs(Duration.ofMinutes(10), 10, 10, this.clock);

	private static final String CLIENT = "address 127.0.0.1";

	private static final MonteCarloResult PRICE = new MonteCarloResult(10.5, 0.01, 4096, 10.45, 0);

	private UUID start(CompletableFuture<MonteCarloResult> future) {
		this.jobs.reserve(CLIENT);
		return this.jobs.add(CLIENT, future);
	}

	@Test
	void runningJobShouldNeverBeEvictedWhateverItsAge() {
		UUID id = start(new CompletableFuture<>());
		this.clock.advance(Duration.ofHours(5));
		assertThat(this.jobs.find(id)).get().extracting(JobStatus::status).isEqualTo("RUNNING");
	}

	@Test
	void finishedJobShouldExpireAfterTheRetentionCountedFromItsEnd() {
		CompletableFuture<MonteCarloResult> job = new CompletableFuture<>();
		UUID id = start(job);
		this.clock.advance(Duration.ofHours(1));
		job.complete(PRICE);
		this.clock.advance(Duration.ofMinutes(9));
		assertThat(this.jobs.find(id)).get().extracting(JobStatus::result).isEqualTo(PRICE);
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(this.jobs.find(id)).isEmpty();
		assertThat(this.jobs.size()).isZero();
	}

	@Test
	void finishedResultShouldStayForTheRetentionWhateverTheChurnAndAFullStoreShouldRefuseNewJobs() {
		UUID first = start(CompletableFuture.completedFuture(PRICE));
		for (int i = 1; i < 10; i++) {
			this.clock.advance(Duration.ofSeconds(1));
			start(CompletableFuture.completedFuture(PRICE));
		}
		assertThatExceptionOfType(ShedException.class).isThrownBy(() -> this.jobs.reserve("address 127.0.0.2"));
		this.clock.advance(Duration.ofMinutes(9));
		assertThat(this.jobs.find(first)).get().extracting(JobStatus::status).isEqualTo("DONE");
		// Ten minutes and half a second after the first ended: only the first expired.
		this.clock.advance(Duration.ofMillis(51_500));
		assertThat(this.jobs.find(first)).isEmpty();
		this.jobs.reserve("address 127.0.0.2");
		assertThatExceptionOfType(ShedException.class).isThrownBy(() -> this.jobs.reserve("address 127.0.0.2"));
	}

	@Test
	void failedJobShouldKeepAShortMessageNotTheException() {
		CompletableFuture<MonteCarloResult> job = new CompletableFuture<>();
		UUID id = start(job);
		job.completeExceptionally(new IllegalStateException("x".repeat(10_000)));
		assertThat(this.jobs.find(id)).get()
			.satisfies((status) -> assertThat(status.error()).hasSize(MonteCarloJobs.MAX_ERROR));
	}

	@Test
	void cancelledReservationShouldFreeItsPlace() {
		for (int i = 0; i < 10; i++) {
			this.jobs.reserve(CLIENT);
		}
		this.jobs.cancel(CLIENT);
		this.jobs.reserve(CLIENT);
		assertThat(this.jobs.size()).isEqualTo(10);
	}

	@Test
	void placesFromTheHeapShouldBeAFewPercentOfItAtTheEstimatedSize() {
		assertThat(MonteCarloJobs.fromHeap(1L << 30)).isEqualTo((int) ((1L << 30) / 100 * 5 / 1024));
		assertThat(MonteCarloJobs.fromHeap(1L << 20)).isEqualTo(1000);
	}

	@Test
	void retentionAndPlacesShouldBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new MonteCarloJobs(Duration.ZERO, 10, 0, this.clock))
			.withMessageContaining("sample.jobs.retention");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new MonteCarloJobs(Duration.ofMinutes(1), 0, 0, this.clock))
			.withMessageContaining("sample.jobs.max-retained");
	}

	@Test
	void clientHoldingItsShareOfThePlacesShouldBeToldToRetryWhenItsOldestResultExpires() {
		MonteCarloJobs shared = new MonteCarloJobs(Duration.ofMinutes(10), 10, 2, this.clock);
		shared.reserve("greedy");
		shared.add("greedy", CompletableFuture.completedFuture(PRICE));
		this.clock.advance(Duration.ofMinutes(4));
		shared.reserve("greedy");
		shared.add("greedy", new CompletableFuture<>());
		assertThatExceptionOfType(TooManyJobsException.class).isThrownBy(() -> shared.reserve("greedy"))
			.satisfies((ex) -> assertThat(ex.retryAfterSeconds()).isEqualTo(6 * 60));
		shared.reserve("polite");
		this.clock.advance(Duration.ofMinutes(6).plusSeconds(1));
		shared.reserve("greedy");
	}

	@Test
	void jobStillRunningWhenTheApplicationStopsShouldEndFailedWithTheShutdownAsItsReason() {
		CompletableFuture<MonteCarloResult> running = new CompletableFuture<>();
		UUID id = start(running);
		CompletableFuture<MonteCarloResult> finishing = new CompletableFuture<>();
		UUID finished = start(finishing);
		java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
		this.jobs.stop(() -> stopped.set(true));
		assertThatExceptionOfType(ShedException.class).isThrownBy(() -> this.jobs.reserve(CLIENT));
		finishing.complete(PRICE);
		assertThat(this.jobs.find(finished)).get().extracting(JobStatus::status).isEqualTo("DONE");
		assertThat(stopped).isFalse();
		this.jobs.failRunning();
		assertThat(this.jobs.find(id)).get().satisfies((status) -> {
			assertThat(status.status()).isEqualTo("FAILED");
			assertThat(status.error()).startsWith(MonteCarloJobs.SHUTDOWN_REASON);
		});
		running.complete(PRICE);
		assertThat(stopped).isTrue();
		assertThat(this.jobs.find(id)).get().extracting(JobStatus::status).isEqualTo("FAILED");
	}

	static final class MutableClock extends Clock {

		private Instant now = Instant.parse("2026-12-03T00:00:00Z");

		void advance(Duration duration) {
			this.now = this.now.plus(duration);
		}

		@Override
		public ZoneOffset getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

}
