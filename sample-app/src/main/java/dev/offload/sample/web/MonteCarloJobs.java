package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import dev.offload.sample.pricing.MonteCarloResult;

/**
 * The Monte Carlo jobs started, by id: running jobs, and finished results for
 * {@code sample.jobs.retention} (10 minutes by default) after they ended. Nothing is
 * evicted early: a job takes a place ({@link #reserve}) before it starts, which it keeps
 * while it runs and, as a small result (the price, or a failure's first
 * {@value #MAX_ERROR} characters, not the exception), for the retention after it ends.
 * When all {@code sample.jobs.max-retained} places are taken, a new job is refused (503,
 * retry later) rather than a result dropped; by default the places are sized from the
 * heap, {@value #HEAP_PERCENT}% of it at about {@value #BYTES_PER_JOB} bytes a job.
 * Expiry walks the results in the order they ended, so a request costs the results that
 * expire, not all of them. Each job's end is logged ({@code Monte Carlo job <id> DONE} or
 * {@code FAILED: <reason>}), so that none ends unseen, even at shutdown.
 */
@Component
public class MonteCarloJobs {

	static final int MAX_ERROR = 200;

	static final int HEAP_PERCENT = 5;

	static final int BYTES_PER_JOB = 1024;

	private static final Logger logger = LoggerFactory.getLogger(MonteCarloJobs.class);

	private final Map<UUID, Job> jobs = new ConcurrentHashMap<>();

	private final Queue<Ended> ended = new ConcurrentLinkedQueue<>();

	private final AtomicInteger places = new AtomicInteger();

	private final Duration retention;

	private final int maxRetained;

	private final Clock clock;

	@Autowired
	MonteCarloJobs(@Value("${sample.jobs.retention:10m}") Duration retention,
			@Value("${sample.jobs.max-retained:0}") int maxRetained) {
		this(retention, (maxRetained > 0) ? maxRetained : fromHeap(Runtime.getRuntime().maxMemory()),
				Clock.systemUTC());
	}

	MonteCarloJobs(Duration retention, int maxRetained, Clock clock) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("sample.jobs.retention must be positive, was " + retention);
		}
		if (maxRetained < 1) {
			throw new IllegalArgumentException("sample.jobs.max-retained must be at least 1, was " + maxRetained);
		}
		this.retention = retention;
		this.maxRetained = maxRetained;
		this.clock = clock;
	}

	static int fromHeap(long maxHeapBytes) {
		return (int) Math.max(1000, Math.min(Integer.MAX_VALUE, maxHeapBytes / 100 * HEAP_PERCENT / BYTES_PER_JOB));
	}

	/**
	 * Takes a place for a job about to start.
	 * @return whether there was one; if so, {@link #add} or {@link #cancel} must follow
	 */
	boolean reserve() {
		expire();
		int taken;
		do {
			taken = this.places.get();
			if (taken >= this.maxRetained) {
				return false;
			}
		}
		while (!this.places.compareAndSet(taken, taken + 1));
		return true;
	}

	/**
	 * Gives back a place taken by {@link #reserve} for a job that did not start.
	 */
	void cancel() {
		this.places.decrementAndGet();
	}

	/**
	 * Adds a started job in the place {@link #reserve} took.
	 * @param future the job's result
	 * @return the job's id
	 */
	UUID add(CompletableFuture<MonteCarloResult> future) {
		UUID id = UUID.randomUUID();
		this.jobs.put(id, new Job(future, null));
		future.whenComplete((result, failure) -> end(id, result, failure));
		return id;
	}

	private void end(UUID id, MonteCarloResult result, Throwable failure) {
		Instant now = this.clock.instant();
		if (failure == null) {
			this.jobs.put(id, new Job(null, new Outcome(result, null)));
			logger.info("Monte Carlo job {} DONE", id);
		}
		else {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			String message = String.valueOf(cause.getMessage());
			String error = (message.length() <= MAX_ERROR) ? message : message.substring(0, MAX_ERROR);
			this.jobs.put(id, new Job(null, new Outcome(null, error)));
			// The short form in the log too: a message can be as long as its cause made
			// it.
			logger.info("Monte Carlo job {} FAILED: {}", id, error);
		}
		this.ended.add(new Ended(id, now));
	}

	/**
	 * Reads a job.
	 * @param id the job's id
	 * @return its status, empty if there is no such job or its result expired
	 */
	Optional<JobStatus> find(UUID id) {
		expire();
		Job job = this.jobs.get(id);
		if (job == null) {
			return Optional.empty();
		}
		return Optional.of((job.outcome() != null) ? JobStatus.of(id, job.outcome()) : JobStatus.running(id));
	}

	int size() {
		return this.places.get();
	}

	private void expire() {
		Instant oldest = this.clock.instant().minus(this.retention);
		Ended first;
		while ((first = this.ended.peek()) != null && first.at().isBefore(oldest)) {
			if (this.ended.remove(first)) {
				this.jobs.remove(first.id());
				this.places.decrementAndGet();
			}
		}
	}

	/**
	 * A job: running (its future) or finished (its outcome).
	 */
	private record Job(CompletableFuture<MonteCarloResult> future, Outcome outcome) {

	}

	/**
	 * A finished job's price or failure.
	 *
	 * @param result the price, if it succeeded
	 * @param error the failure's message, if it failed
	 */
	record Outcome(MonteCarloResult result, String error) {

	}

	private record Ended(UUID id, Instant at) {

	}

}
