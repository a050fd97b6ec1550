package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import dev.offload.sample.pricing.MonteCarloResult;

/**
 * The Monte Carlo jobs started, by id. A running job is never evicted: what was accepted
 * can always be read until it ends. A finished job is kept for
 * {@code sample.jobs.retention} (10 minutes by default) after it ended, and of the
 * finished ones at most {@value #MAX_FINISHED} are kept (the oldest finished go first).
 * Each job's end is logged ({@code Monte Carlo job <id> DONE} or
 * {@code FAILED: <reason>}), so that none ends unseen, even at shutdown.
 */
@Component
public class MonteCarloJobs {

	static final int MAX_FINISHED = 1000;

	private static final Logger logger = LoggerFactory.getLogger(MonteCarloJobs.class);

	private final Map<UUID, Job> jobs = new ConcurrentHashMap<>();

	private final Duration retention;

	private final Clock clock;

	@Autowired
	MonteCarloJobs(@Value("${sample.jobs.retention:10m}") Duration retention) {
		this(retention, Clock.systemUTC());
	}

	MonteCarloJobs(Duration retention, Clock clock) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("sample.jobs.retention must be positive, was " + retention);
		}
		this.retention = retention;
		this.clock = clock;
	}

	UUID add(CompletableFuture<MonteCarloResult> future) {
		expire();
		UUID id = UUID.randomUUID();
		Job job = new Job(future);
		this.jobs.put(id, job);
		future.whenComplete((result, failure) -> {
			job.finishedAt = this.clock.instant();
			if (failure == null) {
				logger.info("Monte Carlo job {} DONE", id);
			}
			else {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				logger.info("Monte Carlo job {} FAILED: {}", id, cause.getMessage());
			}
		});
		return id;
	}

	Optional<CompletableFuture<MonteCarloResult>> find(UUID id) {
		expire();
		return Optional.ofNullable(this.jobs.get(id)).map(Job::future);
	}

	int size() {
		return this.jobs.size();
	}

	private void expire() {
		Instant oldest = this.clock.instant().minus(this.retention);
		this.jobs.values().removeIf((job) -> job.finishedAt != null && job.finishedAt.isBefore(oldest));
		long finished = this.jobs.values().stream().filter((job) -> job.finishedAt != null).count();
		if (finished > MAX_FINISHED) {
			this.jobs.entrySet()
				.stream()
				.filter((entry) -> entry.getValue().finishedAt != null)
				.sorted(Comparator.comparing((Map.Entry<UUID, Job> entry) -> entry.getValue().finishedAt))
				.limit(finished - MAX_FINISHED)
				.map(Map.Entry::getKey)
				.toList()
				.forEach(this.jobs::remove);
		}
	}

	private static final class Job {

		private final CompletableFuture<MonteCarloResult> future;

		private volatile Instant finishedAt;

		Job(CompletableFuture<MonteCarloResult> future) {
			this.future = future;
		}

		CompletableFuture<MonteCarloResult> future() {
			return this.future;
		}

	}

}
