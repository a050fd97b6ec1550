package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;
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
 * heap, {@value #HEAP_PERCENT}% of it at about {@value #BYTES_PER_JOB} bytes a job. One
 * tenant (as {@link TenantKey} tells them apart) may hold at most
 * {@code sample.jobs.max-retained-per-tenant} places (a tenth of them by default), queued
 * jobs included, so that one tenant cannot lock the others out until its results expire:
 * past it, its new jobs get 429 with {@code Retry-After} until its oldest result expires.
 * Expiry walks the results in the order they ended, so a request costs the results that
 * expire, not all of them. Each job's end is logged ({@code Monte Carlo job <id> DONE} or
 * {@code FAILED: <reason>}), so that none ends unseen, even at shutdown.
 * <p>
 * At shutdown, new jobs are refused first ({@link #stopAccepting}, before the web
 * server's graceful phase); then the running ones get the graceful phase
 * ({@code spring.lifecycle.timeout-per-shutdown-phase}) and Offload's
 * {@code await-termination} to finish. One that fails meanwhile, or is still running when
 * the application is destroyed, ends {@code FAILED} with {@value #SHUTDOWN_REASON} as its
 * reason.
 */
@Component
public class MonteCarloJobs implements SmartLifecycle {

	static final int MAX_ERROR = 200;

	static final int HEAP_PERCENT = 5;

	static final int BYTES_PER_JOB = 1024;

	static final String SHUTDOWN_REASON = "The service shut down before the job finished";

	private static final Logger logger = LoggerFactory.getLogger(MonteCarloJobs.class);

	private final Map<UUID, Job> jobs = new ConcurrentHashMap<>();

	private final Queue<Ended> ended = new ConcurrentLinkedQueue<>();

	/** The places each tenant holds, and when its finished jobs ended; under this. */
	private final Map<String, TenantPlaces> tenants = new HashMap<>();

	/** Places taken, under this. */
	private int places;

	private final Duration retention;

	private final int maxRetained;

	private final int maxPerTenant;

	private final Clock clock;

	private volatile boolean accepting = true;

	private volatile boolean running;

	@Autowired
	MonteCarloJobs(@Value("${sample.jobs.retention:10m}") Duration retention,
			@Value("${sample.jobs.max-retained:0}") int maxRetained,
			@Value("${sample.jobs.max-retained-per-tenant:${sample.jobs.max-retained-per-client:0}}") int maxPerTenant) {
		this(retention, (maxRetained > 0) ? maxRetained : fromHeap(Runtime.getRuntime().maxMemory()), maxPerTenant,
				Clock.systemUTC());
	}

	MonteCarloJobs(Duration retention, int maxRetained, int maxPerTenant, Clock clock) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("sample.jobs.retention must be positive, was " + retention);
		}
		if (maxRetained < 1) {
			throw new IllegalArgumentException("sample.jobs.max-retained must be at least 1, was " + maxRetained);
		}
		if (maxPerTenant < 0) {
			throw new IllegalArgumentException(
					"sample.jobs.max-retained-per-tenant must be at least 1, was " + maxPerTenant);
		}
		this.retention = retention;
		this.maxRetained = maxRetained;
		this.maxPerTenant = (maxPerTenant > 0) ? maxPerTenant : Math.max(1, maxRetained / 10);
		this.clock = clock;
	}

	static int fromHeap(long maxHeapBytes) {
		return (int) Math.max(1000, Math.min(Integer.MAX_VALUE, maxHeapBytes / 100 * HEAP_PERCENT / BYTES_PER_JOB));
	}

	/**
	 * Takes a place for a tenant's job about to start or queue.
	 * @param tenant the tenant
	 * @throws ShedException if the store is full or the service is shutting down (503)
	 * @throws TooManyJobsException if the tenant holds its share of the places (429) and,
	 * if not thrown, {@link #add} or {@link #cancel} must follow
	 */
	void reserve(String tenant) {
		if (!this.accepting) {
			throw new ShedException("The service is shutting down");
		}
		expire();
		synchronized (this) {
			TenantPlaces held = this.tenants.get(tenant);
			if (held != null && held.places >= this.maxPerTenant) {
				throw TooManyJobsException.storeFull(tenant, this.maxPerTenant, retryAfter(held));
			}
			if (this.places >= this.maxRetained) {
				throw new ShedException("The job store is full");
			}
			this.places++;
			this.tenants.computeIfAbsent(tenant, (key) -> new TenantPlaces()).places++;
		}
	}

	/**
	 * When the tenant's oldest result expires, freeing a place; with none finished, the
	 * retention (a running job keeps its place for that long after it ends).
	 */
	private Duration retryAfter(TenantPlaces held) {
		Instant oldest = held.ends.peek();
		if (oldest == null) {
			return this.retention;
		}
		Duration left = Duration.between(this.clock.instant(), oldest.plus(this.retention));
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Gives back a place taken by {@link #reserve} for a job that did not start.
	 * @param tenant the tenant
	 */
	synchronized void cancel(String tenant) {
		release(tenant);
	}

	private void release(String tenant) {
		this.places--;
		TenantPlaces held = this.tenants.get(tenant);
		if (held != null && --held.places == 0) {
			this.tenants.remove(tenant);
		}
	}

	/**
	 * Adds a started job in the place {@link #reserve} took.
	 * @param tenant the tenant
	 * @param future the job's result
	 * @return the job's id
	 */
	UUID add(String tenant, CompletableFuture<MonteCarloResult> future) {
		return add(tenant, future, () -> true);
	}

	/**
	 * Adds a job, started or queued, in the place {@link #reserve} took.
	 * @param tenant the tenant
	 * @param future the job's result
	 * @param started whether the job has started (else it is queued)
	 * @return the job's id
	 */
	UUID add(String tenant, CompletableFuture<MonteCarloResult> future, BooleanSupplier started) {
		UUID id = UUID.randomUUID();
		Job job = new Job(tenant, future, started, null);
		this.jobs.put(id, job);
		future.whenComplete((result, failure) -> end(id, job, result, failure));
		return id;
	}

	private void end(UUID id, Job job, MonteCarloResult result, Throwable failure) {
		Instant now = this.clock.instant();
		Job done;
		if (failure == null) {
			done = new Job(job.tenant(), null, job.started(), new Outcome(result, null));
		}
		else {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			String message = String.valueOf(cause.getMessage());
			if (!this.accepting) {
				message = SHUTDOWN_REASON + ": " + message;
			}
			done = new Job(job.tenant(), null, job.started(),
					new Outcome(null, (message.length() <= MAX_ERROR) ? message : message.substring(0, MAX_ERROR)));
		}
		// Once: a job failed at the destruction may still complete afterwards.
		if (!this.jobs.replace(id, job, done)) {
			return;
		}
		if (failure == null) {
			logger.info("Monte Carlo job {} DONE", id);
		}
		else {
			// The short form in the log too: a message can be as long as its cause made
			// it.
			logger.info("Monte Carlo job {} FAILED: {}", id, done.outcome().error());
		}
		synchronized (this) {
			TenantPlaces held = this.tenants.get(job.tenant());
			if (held != null) {
				held.ends.add(now);
			}
			this.ended.add(new Ended(id, job.tenant(), now));
		}
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
		if (job.outcome() != null) {
			return Optional.of(JobStatus.of(id, job.outcome()));
		}
		return Optional.of(job.started().getAsBoolean() ? JobStatus.running(id) : JobStatus.queued(id));
	}

	synchronized int size() {
		return this.places;
	}

	private void expire() {
		Instant oldest = this.clock.instant().minus(this.retention);
		Ended first;
		while ((first = this.ended.peek()) != null && first.at().isBefore(oldest)) {
			synchronized (this) {
				if (this.ended.remove(first)) {
					this.jobs.remove(first.id());
					TenantPlaces held = this.tenants.get(first.tenant());
					if (held != null) {
						held.ends.poll();
					}
					release(first.tenant());
				}
			}
		}
	}

	/**
	 * Refuses new jobs from now on (503): the first step of the shutdown.
	 */
	void stopAccepting() {
		this.accepting = false;
	}

	boolean isAccepting() {
		return this.accepting;
	}

	/**
	 * Counts the jobs still running or queued.
	 * @return the running and queued jobs
	 */
	int running() {
		return (int) this.jobs.values().stream().filter((job) -> job.future() != null).count();
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		stop(() -> {
		});
	}

	/**
	 * Refuses new jobs, and lets the web server's graceful phase end once the running
	 * jobs ended (or at the phase's timeout, whichever first): both run in the same
	 * phase.
	 */
	@Override
	public void stop(Runnable callback) {
		stopAccepting();
		this.running = false;
		CompletableFuture<?>[] runningJobs = this.jobs.values()
			.stream()
			.map(Job::future)
			.filter(Objects::nonNull)
			.toArray(CompletableFuture[]::new);
		if (runningJobs.length > 0) {
			logger.info("Waiting for {} running Monte Carlo job(s) to finish", runningJobs.length);
		}
		CompletableFuture.allOf(runningJobs).whenComplete((done, failure) -> callback.run());
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE;
	}

	/**
	 * Ends every job still running as {@code FAILED} with the shutdown as its reason,
	 * once the lifecycle (the graceful phase and Offload's drain) has given them all the
	 * time it had: a job accepted is never lost unseen.
	 */
	@PreDestroy
	void failRunning() {
		this.accepting = false;
		this.jobs.forEach((id, job) -> {
			if (job.future() != null) {
				end(id, job, null, new IllegalStateException("still running when the application stopped"));
			}
		});
	}

	/**
	 * Refuses new jobs at the very start of the shutdown, before the kept-alive
	 * connections are drained ({@link KeepAliveDrain}, one phase later) and before the
	 * web server's graceful phase, in which the running jobs are waited for.
	 */
	static final class Intake implements SmartLifecycle {

		private final MonteCarloJobs jobs;

		private volatile boolean running;

		Intake(MonteCarloJobs jobs) {
			this.jobs = jobs;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.jobs.stopAccepting();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 2;
		}

	}

	/**
	 * A job: queued or running (its future, and whether it started) or finished (its
	 * outcome), and whose it is.
	 */
	private record Job(String tenant, CompletableFuture<MonteCarloResult> future, BooleanSupplier started,
			Outcome outcome) {

	}

	/**
	 * The places one tenant holds, and when its finished jobs ended, oldest first.
	 */
	private static final class TenantPlaces {

		private int places;

		private final Queue<Instant> ends = new ArrayDeque<>();

	}

	/**
	 * A finished job's price or failure.
	 *
	 * @param result the price, if it succeeded
	 * @param error the failure's message, if it failed
	 */
	record Outcome(MonteCarloResult result, String error) {

	}

	private record Ended(UUID id, String tenant, Instant at) {

	}

}
