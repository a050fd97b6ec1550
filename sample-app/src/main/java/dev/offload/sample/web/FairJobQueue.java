package dev.offload.sample.web;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The Monte Carlo slots (the NORMAL lane's sessions on every device), shared fairly among
 * tenants. A job starts at once while a slot is free and no job is queued; else it waits
 * in its tenant's queue, at most {@code maxQueuedPerTenant} of them (past it, 429). Each
 * slot freed goes to the queued tenant that runs the fewest jobs, among equals the one
 * whose last job started longest ago: with {@code k} tenants queued, each gets one slot
 * in {@code k}, however many jobs the others queued or however fast they post them. A
 * tenant alone uses every slot.
 * <p>
 * A job refused when it starts from the queue because the device is busy (the lane, the
 * pool or the memory budget full, say by scenario risk requests that share the lane) goes
 * back to the head of its tenant's queue and the queue tries again after
 * {@code retryDelay}, up to {@value #MAX_ATTEMPTS} times; then, or at once for another
 * refusal (a failed device, a closed pool), the job fails with the refusal. One that
 * started at once and was refused is the request's failure (503), as before there was a
 * queue. Queued jobs are started on the {@code dispatcher}, never on the thread that
 * completed the job whose slot they take.
 *
 * @param <R> the jobs' result
 */
final class FairJobQueue<R> implements AutoCloseable {

	static final int MAX_ATTEMPTS = 40;

	static final String NEVER_STARTED = "still queued when the application stopped";

	/** When a tenant whose queue is full may try again: when a job of its may start. */
	static final Duration QUEUE_RETRY_AFTER = Duration.ofSeconds(1);

	private final int slots;

	private final int maxQueuedPerTenant;

	private final Predicate<Throwable> refusal;

	private final Predicate<Throwable> busy;

	private final Executor dispatcher;

	private final Executor retries;

	/** The tenants running or queueing jobs; under this. */
	private final Map<String, Tenant> tenants = new HashMap<>();

	/** The tenants with queued jobs; under this. */
	private final Map<String, Tenant> backlog = new LinkedHashMap<>();

	/** Slots taken; under this. */
	private int taken;

	/** Jobs started, for the order of service; under this. */
	private long starts;

	private boolean closed;

	/**
	 * Creates the queue.
	 * @param slots the jobs that run at once
	 * @param maxQueuedPerTenant the jobs one tenant may queue
	 * @param refusal which failures of a start are the device's refusal (the lane, the
	 * pool, the memory budget, a failed device), not the job's: a job that started at
	 * once is then not accepted
	 * @param busy which refusals may pass (a full lane, pool or memory budget): a queued
	 * job is then tried again; after another refusal it fails
	 * @param dispatcher where queued jobs start
	 * @param retryDelay how long after a refusal the queue tries again
	 */
	FairJobQueue(int slots, int maxQueuedPerTenant, Predicate<Throwable> refusal, Predicate<Throwable> busy,
			Executor dispatcher, Duration retryDelay) {
		if (slots < 1) {
			throw new IllegalArgumentException("The Monte Carlo slots must be at least 1, was " + slots);
		}
		if (maxQueuedPerTenant < 0) {
			throw new IllegalArgumentException(
					"sample.jobs.max-queued-per-tenant must not be negative, was " + maxQueuedPerTenant);
		}
		this.slots = slots;
		this.maxQueuedPerTenant = maxQueuedPerTenant;
		this.refusal = refusal;
		this.busy = busy;
		this.dispatcher = dispatcher;
		this.retries = CompletableFuture.delayedExecutor(retryDelay.toNanos(), TimeUnit.NANOSECONDS, dispatcher);
	}

	/**
	 * Starts a tenant's job at once if a slot is free and none is queued, else queues it.
	 * @param tenant the tenant
	 * @param start starts the job (the device's work), called once it has a slot
	 * @return the job, whose result completes once it ran
	 * @throws TooManyJobsException if the tenant has {@code maxQueuedPerTenant} jobs
	 * queued (429)
	 * @throws ShedException if the queue is closed (503)
	 * @throws RuntimeException the refusal, if the job started at once and was refused
	 */
	Job<R> submit(String tenant, Supplier<CompletableFuture<R>> start) {
		Job<R> job = new Job<>(tenant, start);
		synchronized (this) {
			if (this.closed) {
				throw new ShedException("The service is shutting down");
			}
			Tenant held = this.tenants.computeIfAbsent(tenant, (key) -> new Tenant());
			if (this.taken < this.slots && this.backlog.isEmpty()) {
				held.running++;
				held.lastStart = ++this.starts;
				this.taken++;
			}
			else {
				if (held.queued.size() >= this.maxQueuedPerTenant) {
					forgetIfIdle(tenant, held);
					throw new TooManyJobsException(
							"Tenant " + tenant + " has its " + this.maxQueuedPerTenant + " Monte Carlo jobs queued",
							"Your Monte Carlo jobs fill your place in the queue; retry once one has started",
							QUEUE_RETRY_AFTER);
				}
				held.queued.add(job);
				this.backlog.putIfAbsent(tenant, held);
				return job;
			}
		}
		RuntimeException refused = start(job);
		if (refused != null) {
			release(job);
			throw refused;
		}
		return job;
	}

	/**
	 * Starts a job that holds a slot.
	 * @return the refusal, if the device refused it; the job is then not started and
	 * still holds its slot
	 */
	private RuntimeException start(Job<R> job) {
		CompletableFuture<R> running;
		try {
			running = job.start.get();
		}
		catch (RuntimeException ex) {
			if (this.refusal.test(ex)) {
				return ex;
			}
			running = CompletableFuture.failedFuture(ex);
		}
		if (running.isCompletedExceptionally()) {
			Throwable cause = causeOf(running);
			if (this.refusal.test(cause)) {
				return (cause instanceof RuntimeException ex) ? ex : new CompletionException(cause);
			}
		}
		job.started = true;
		running.whenComplete((result, failure) -> {
			release(job);
			if (failure == null) {
				job.result.complete(result);
			}
			else {
				job.result.completeExceptionally(failure);
			}
		});
		return null;
	}

	private static Throwable causeOf(CompletableFuture<?> failed) {
		try {
			failed.join();
			return new IllegalStateException("not failed");
		}
		catch (CompletionException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private void release(Job<R> job) {
		boolean queued;
		synchronized (this) {
			Tenant held = this.tenants.get(job.tenant);
			held.running--;
			this.taken--;
			forgetIfIdle(job.tenant, held);
			queued = !this.backlog.isEmpty();
		}
		if (queued) {
			try {
				this.dispatcher.execute(this::dispatch);
			}
			catch (RejectedExecutionException ex) {
				// The application is stopping: close() fails what is still queued.
			}
		}
	}

	/**
	 * Starts queued jobs while slots are free, each in the next tenant's turn.
	 */
	private void dispatch() {
		while (true) {
			Job<R> next;
			synchronized (this) {
				if (this.closed || this.taken >= this.slots || this.backlog.isEmpty()) {
					return;
				}
				next = takeNext();
				this.taken++;
			}
			RuntimeException refused = start(next);
			if (refused != null) {
				if (!this.busy.test(refused) || ++next.attempts >= MAX_ATTEMPTS) {
					release(next);
					next.result.completeExceptionally(refused);
					continue;
				}
				synchronized (this) {
					Tenant held = this.tenants.get(next.tenant);
					held.running--;
					this.taken--;
					held.queued.addFirst(next);
					this.backlog.putIfAbsent(next.tenant, held);
				}
				this.retries.execute(this::dispatch);
				return;
			}
		}
	}

	/**
	 * Takes the head job of the queued tenant running the fewest jobs, the one whose last
	 * job started longest ago among equals, and marks it running; under this.
	 */
	private Job<R> takeNext() {
		String chosen = null;
		Tenant next = null;
		for (Map.Entry<String, Tenant> entry : this.backlog.entrySet()) {
			Tenant held = entry.getValue();
			if (next == null || held.running < next.running
					|| (held.running == next.running && held.lastStart < next.lastStart)) {
				chosen = entry.getKey();
				next = held;
			}
		}
		Job<R> job = next.queued.poll();
		if (next.queued.isEmpty()) {
			this.backlog.remove(chosen);
		}
		next.running++;
		next.lastStart = ++this.starts;
		return job;
	}

	private void forgetIfIdle(String tenant, Tenant held) {
		if (held.running == 0 && held.queued.isEmpty()) {
			this.tenants.remove(tenant);
		}
	}

	/**
	 * Counts a tenant's jobs running.
	 * @param tenant the tenant
	 * @return its running jobs
	 */
	synchronized int running(String tenant) {
		Tenant held = this.tenants.get(tenant);
		return (held != null) ? held.running : 0;
	}

	/**
	 * Counts a tenant's jobs queued.
	 * @param tenant the tenant
	 * @return its queued jobs
	 */
	synchronized int queued(String tenant) {
		Tenant held = this.tenants.get(tenant);
		return (held != null) ? held.queued.size() : 0;
	}

	/**
	 * Starts nothing more and fails the jobs still queued: the application is stopping
	 * (after the web server's graceful phase, in which queued jobs may still start).
	 */
	@Override
	public void close() {
		List<Job<R>> dropped = new ArrayList<>();
		synchronized (this) {
			this.closed = true;
			for (Iterator<Map.Entry<String, Tenant>> entries = this.tenants.entrySet().iterator(); entries.hasNext();) {
				Tenant held = entries.next().getValue();
				dropped.addAll(held.queued);
				held.queued.clear();
				if (held.running == 0) {
					entries.remove();
				}
			}
			this.backlog.clear();
		}
		dropped.forEach((job) -> job.result.completeExceptionally(new IllegalStateException(NEVER_STARTED)));
	}

	/**
	 * A tenant's job: queued until it has a slot, then running.
	 *
	 * @param <R> its result
	 */
	static final class Job<R> {

		private final String tenant;

		private final Supplier<CompletableFuture<R>> start;

		private final CompletableFuture<R> result = new CompletableFuture<>();

		private volatile boolean started;

		private int attempts;

		private Job(String tenant, Supplier<CompletableFuture<R>> start) {
			this.tenant = tenant;
			this.start = start;
		}

		/**
		 * Returns the job's result.
		 * @return the result, completed once the job ran (or failed to)
		 */
		CompletableFuture<R> result() {
			return this.result;
		}

		/**
		 * Tells whether the job has a slot and started.
		 * @return whether it started
		 */
		boolean started() {
			return this.started;
		}

	}

	/**
	 * One tenant's running and queued jobs.
	 */
	private final class Tenant {

		private int running;

		/** When its last job started, in jobs started; 0 for none. */
		private long lastStart;

		private final ArrayDeque<Job<R>> queued = new ArrayDeque<>();

	}

}
