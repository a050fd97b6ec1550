package dev.offload.sample.web;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.offload.DeviceFailedException;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolClosedException;
import dev.offload.sample.pricing.MonteCarloRequest;
import dev.offload.sample.pricing.MonteCarloResult;
import dev.offload.sample.pricing.MonteCarloService;
import dev.offload.sample.pricing.OptionPricingService;
import dev.offload.sample.pricing.PriceRequest;
import dev.offload.sample.pricing.PricedBatch;

import static org.springframework.http.HttpStatus.NOT_FOUND;

/**
 * The pricing API: light Black-Scholes batches, and heavy Monte Carlo jobs.
 */
@RestController
@RequestMapping("/api/options")
public class OptionsController {

	private final OptionPricingService pricing;

	private final MonteCarloService monteCarlo;

	private final MonteCarloJobs jobs;

	private final ElementValidator elements;

	private final FairJobQueue<MonteCarloResult> queue;

	private final TenantKey tenants;

	OptionsController(OptionPricingService pricing, MonteCarloService monteCarlo, MonteCarloJobs jobs,
			ElementValidator elements, FairJobQueue<MonteCarloResult> queue, TenantKey tenants) {
		this.pricing = pricing;
		this.monteCarlo = monteCarlo;
		this.jobs = jobs;
		this.elements = elements;
		this.queue = queue;
		this.tenants = tenants;
	}

	/**
	 * Prices a batch of European options. The batch's size is validated first; only a
	 * batch of an accepted size has its options validated, one by one. The deadline
	 * started when the request was admitted: what is left of it bounds the GPU work.
	 * @param request the options
	 * @param http the HTTP request, which carries the deadline
	 * @return the prices
	 */
	@PostMapping("/price")
	public PricedBatch price(@Valid @RequestBody PriceRequest request, HttpServletRequest http) {
		this.elements.validate("options", request.options());
		Duration left = PriceAdmission.remaining(http);
		if (left == null) {
			return this.pricing.price(request.options());
		}
		if (left.isNegative() || left.isZero()) {
			throw new ShedException("The price deadline passed while the request was read");
		}
		return this.pricing.price(request.options(), left);
	}

	/**
	 * Starts a Monte Carlo simulation, or queues it while every slot is taken: jobs are
	 * started in turn among tenants (as {@link TenantKey} tells them apart). Accepted
	 * (202, {@code RUNNING} or {@code QUEUED}) if the store has room for its result and
	 * the tenant is within its share of the store and of the queue (else 429 with
	 * {@code Retry-After}). A job that starts at once does so only once it holds its
	 * stream and the device's memory budget admits its buffers; if they refuse it, 503
	 * with {@code Retry-After} and no job. 503 too once the service is shutting down.
	 * @param request the option and the number of paths
	 * @param http the HTTP request, whose tenant is counted
	 * @return 202 with the job's status and location
	 */
	@PostMapping("/monte-carlo")
	public ResponseEntity<JobStatus> monteCarlo(@Valid @RequestBody MonteCarloRequest request,
			HttpServletRequest http) {
		String tenant = this.tenants.of(http);
		this.jobs.reserve(tenant);
		FairJobQueue.Job<MonteCarloResult> job;
		try {
			job = this.queue.submit(tenant, () -> JobTenant.as(tenant, () -> this.monteCarlo.simulate(request)));
		}
		catch (RuntimeException ex) {
			this.jobs.cancel(tenant);
			throw ex;
		}
		UUID id = this.jobs.add(tenant, job.result(), job::started);
		JobStatus status = job.started() ? JobStatus.running(id) : JobStatus.queued(id);
		return ResponseEntity.accepted().location(URI.create(status.location())).body(status);
	}

	/**
	 * Whether a job's start failed because the device refused it for now (a full pool or
	 * lane, a memory budget that did not admit its buffers, a failed or closed device),
	 * not because of the job: answered like a light request's refusal (503) for a job
	 * that starts at once, tried again later for a queued one.
	 * @param failure the start's failure
	 * @return whether it is a refusal
	 */
	static boolean isRefusal(Throwable failure) {
		return failure instanceof StreamBorrowTimeoutException || failure instanceof DeviceFailedException
				|| failure instanceof StreamPoolClosedException || failure instanceof SessionTimeoutException
				|| failure instanceof MemoryBudgetExceededException || failure instanceof DeviceOutOfMemoryException;
	}

	/**
	 * Whether a refusal may pass: the pool, the lane or the memory budget is full for
	 * now.
	 * @param refusal the refusal
	 * @return whether trying again later may start the job
	 */
	static boolean isBusy(Throwable refusal) {
		return refusal instanceof StreamBorrowTimeoutException || refusal instanceof SessionTimeoutException
				|| refusal instanceof MemoryBudgetExceededException || refusal instanceof DeviceOutOfMemoryException;
	}

	/**
	 * Reads a Monte Carlo job.
	 * @param id the job's id
	 * @return its status, and its result once done
	 */
	@GetMapping("/monte-carlo/{id}")
	public JobStatus job(@PathVariable UUID id) {
		return this.jobs.find(id).orElseThrow(() -> new ResponseStatusException(NOT_FOUND, "No Monte Carlo job " + id));
	}

}
