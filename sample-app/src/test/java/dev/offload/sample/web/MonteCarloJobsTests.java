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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link MonteCarloJobs}: running jobs stay, finished ones expire by age and by
 * count.
 */
class MonteCarloJobsTests {

	private final MutableClock clock = new MutableClock();

	private final MonteCarloJobs jobs = new MonteCarloJobs(Duration.ofMinutes(10), this.clock);

	@Test
	void runningJobShouldNeverBeEvictedWhateverItsAgeOrTheNumberOfLaterJobs() {
		CompletableFuture<MonteCarloResult> running = new CompletableFuture<>();
		UUID id = this.jobs.add(running);
		this.clock.advance(Duration.ofHours(5));
		for (int i = 0; i < MonteCarloJobs.MAX_FINISHED + 500; i++) {
			this.jobs.add(CompletableFuture.completedFuture(null));
		}
		assertThat(this.jobs.find(id)).containsSame(running);
	}

	@Test
	void finishedJobShouldExpireAfterTheRetentionCountedFromItsEnd() {
		CompletableFuture<MonteCarloResult> job = new CompletableFuture<>();
		UUID id = this.jobs.add(job);
		this.clock.advance(Duration.ofHours(1));
		job.complete(null);
		this.clock.advance(Duration.ofMinutes(9));
		assertThat(this.jobs.find(id)).isPresent();
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(this.jobs.find(id)).isEmpty();
	}

	@Test
	void finishedJobsBeyondTheMaximumShouldGoOldestFirst() {
		UUID first = this.jobs.add(CompletableFuture.completedFuture(null));
		this.clock.advance(Duration.ofSeconds(1));
		for (int i = 0; i < MonteCarloJobs.MAX_FINISHED; i++) {
			this.jobs.add(CompletableFuture.completedFuture(null));
		}
		UUID last = this.jobs.add(CompletableFuture.completedFuture(null));
		assertThat(this.jobs.find(first)).isEmpty();
		assertThat(this.jobs.find(last)).isPresent();
		assertThat(this.jobs.size()).isEqualTo(MonteCarloJobs.MAX_FINISHED);
	}

	@Test
	void retentionShouldBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new MonteCarloJobs(Duration.ZERO, this.clock))
			.withMessageContaining("sample.jobs.retention");
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
