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
 * client (as {@link ClientKey} tells them apart) may hold at most
 * {@code sample.jobs.max-retained-per-client} places (a tenth of them by default), so
 * that one client cannot lock the others out until its results expire: past it, its new
 * jobs get 429 with {@code Retry-After} until its oldest result expires. Expiry walks the
 * results in the order they ended, so a request costs the results that expire, not all of
 * them. Each job's end is logged ({@code Monte Carlo job <id> DONE} or
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

	/** The places each client holds, and when its finished jobs ended; under this. */
	private final Map<String, ClientPlaces> clients = new HashMap<>();

	/** Places taken, under this. */
	private int places;

	private final Duration retention;

	private final int maxRetained;

	private final int maxPerClient;

	private final Clock clock;

	private volatile boolean accepting = true;

	private volatile boolean running;

	@Autowired
	MonteCarloJobs(@Value("${sample.jobs.retention:10m}") Duration retention,
			@Value("${sample.jobs.max-retained:0}") int maxRetained,
			@Value("${sample.jobs.max-retained-per-client:0}") int maxPerClient) {
		this(retention, (maxRetained > 0) ? maxRetained : fromHeap(Runtime.getRuntime().maxMemory()), maxPerClient,
				Clock.systemUTC());
	}

	MonteCarloJobs(Duration retention, int maxRetained, int maxPerClient, Clock clock) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("sample.jobs.retention must be positive, was " + retention);
		}
		if (maxRetained < 1) {
			throw new IllegalArgumentException("sample.jobs.max-retained must be at least 1, was " + maxRetained);
		}
		if (maxPerClient < 0) {
			throw new IllegalArgumentException(
					"sample.jobs.max-retained-per-client must be at least 1, was " + maxPerClient);
		}
		this.retention = retention;
		this.maxRetained = maxRetained;
		this.maxPerClient = (maxPerClient > 0) ? maxPerClient : Math.max(1, maxRetained / 10);
		this.clock = clock;
	}

	static int fromHeap(long maxHeapBytes) {
		return (int) Math.max(1000, Math.min(Integer.MAX_VALUE, maxHeapBytes / 100 * HEAP_PERCENT / BYTES_PER_JOB));
	}

	/**
	 * Takes a place for a client's job about to start.
	 * @param client the client's key
	 * @throws ShedException if the store is full or the service is shutting down (503)
	 * @throws TooManyJobsException if the client holds its share of the places (429) and,
	 * if not thrown, {@link #add} or {@link #cancel} must follow
	 */
	void reserve(String client) {
		if (!this.accepting) {
			throw new ShedException("The service is shutting down");
		}
		expire();
		synchronized (this) {
			ClientPlaces held = this.clients.get(client);
			if (held != null && held.places >= this.maxPerClient) {
				throw new TooManyJobsException(client, this.maxPerClient, retryAfter(held));
			}
			if (this.places >= this.maxRetained) {
				throw new ShedException("The job store is full");
			}
			this.places++;
			this.clients.computeIfAbsent(client, (key) -> new ClientPlaces()).places++;
		}
	}

	/**
	 * When the client's oldest result expires, freeing a place; with none finished, the
	 * retention (a running job keeps its place for that long after it ends).
	 */
	private Duration retryAfter(ClientPlaces held) {
		Instant oldest = held.ends.peek();
		if (oldest == null) {
			return this.retention;
		}
		Duration left = Duration.between(this.clock.instant(), oldest.plus(this.retention));
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Gives back a place taken by {@link #reserve} for a job that did not start.
	 * @param client the client's key
	 */
	synchronized void cancel(String client) {
		release(client);
	}

	private void release(String client) {
		this.places--;
		ClientPlaces held = this.clients.get(client);
		if (held != null && --held.places == 0) {
			this.clients.remove(client);
		}
	}

	/**
	 * Adds a started job in the place {@link #reserve} took.
	 * @param client the client's key
	 * @param future the job's result
	 * @return the job's id
	 */
	UUID add(String client, CompletableFuture<MonteCarloResult> future) {
		UUID id = UUID.randomUUID();
		Job job = new Job(client, future, null);
		this.jobs.put(id, job);
		future.whenComplete((result, failure) -> end(id, job, result, failure));
		return id;
	}

	private void end(UUID id, Job job, MonteCarloResult result, Throwable failure) {
		Instant now = this.clock.instant();
		Job done;
		if (failure == null) {
			done = new Job(job.client(), null, new Outcome(result, null));
		}
		else {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			String message = String.valueOf(cause.getMessage());
			if (!this.accepting) {
				message = SHUTDOWN_REASON + ": " + message;
			}
			done = new Job(job.client(), null,
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
			ClientPlaces held = this.clients.get(job.client());
			if (held != null) {
				held.ends.add(now);
			}
			this.ended.add(new Ended(id, job.client(), now));
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
		return Optional.of((job.outcome() != null) ? JobStatus.of(id, job.outcome()) : JobStatus.running(id));
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
					ClientPlaces held = this.clients.get(first.client());
					if (held != null) {
						held.ends.poll();
					}
					release(first.client());
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
	 * Counts the jobs still running.
	 * @return the running jobs
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
	 * A job: running (its future) or finished (its outcome), and whose it is.
	 */
	private record Job(String client, CompletableFuture<MonteCarloResult> future, Outcome outcome) {

	}

	/**
	 * The places one client holds, and when its finished jobs ended, oldest first.
	 */
	private static final class ClientPlaces {

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

	private record Ended(UUID id, String client, Instant at) {

	}

}
