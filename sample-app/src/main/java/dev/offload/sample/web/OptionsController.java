package dev.offload.sample.web;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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

	private final ClientShares shares;

	private final ClientKey clients;

	OptionsController(OptionPricingService pricing, MonteCarloService monteCarlo, MonteCarloJobs jobs,
			ElementValidator elements, ClientShares shares, ClientKey clients) {
		this.pricing = pricing;
		this.monteCarlo = monteCarlo;
		this.jobs = jobs;
		this.elements = elements;
		this.shares = shares;
		this.clients = clients;
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
	 * Starts a Monte Carlo simulation if the client is within its fair share of the slots
	 * and of the job store, the store has room for its result and the device's memory
	 * budget admits the simulation's buffers: a job is accepted (202) only once it holds
	 * its stream and its memory. Otherwise 503 with {@code Retry-After}, or 429 with it
	 * for a client that holds its share of the store; 503 too once the service is
	 * shutting down.
	 * @param request the option and the number of paths
	 * @param http the HTTP request, whose client is counted
	 * @return 202 with the job's status and location
	 */
	@PostMapping("/monte-carlo")
	public ResponseEntity<JobStatus> monteCarlo(@Valid @RequestBody MonteCarloRequest request,
			HttpServletRequest http) {
		String client = this.clients.of(http);
		this.jobs.reserve(client);
		if (!this.shares.tryAcquire(client)) {
			this.jobs.cancel(client);
			throw new ShedException("Client " + client + " has its share of the Monte Carlo slots");
		}
		CompletableFuture<MonteCarloResult> job = start(request, client);
		UUID id = this.jobs.add(client, job);
		JobStatus status = JobStatus.running(id);
		return ResponseEntity.accepted().location(URI.create(status.location())).body(status);
	}

	private CompletableFuture<MonteCarloResult> start(MonteCarloRequest request, String client) {
		CompletableFuture<MonteCarloResult> job;
		try {
			job = this.monteCarlo.simulate(request);
			rejectIfRefused(job);
		}
		catch (RuntimeException ex) {
			this.jobs.cancel(client);
			this.shares.release(client);
			this.shares.refused(client);
			throw ex;
		}
		job.whenComplete((result, failure) -> this.shares.release(client));
		return job;
	}

	/**
	 * A job that could not even start (a full pool, a memory budget that did not admit
	 * its buffers, a failed or closed device) is the request's failure, answered like a
	 * light request's (503), not a job to poll.
	 */
	private static void rejectIfRefused(CompletableFuture<MonteCarloResult> job) {
		if (!job.isCompletedExceptionally()) {
			return;
		}
		try {
			job.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof StreamBorrowTimeoutException || ex.getCause() instanceof DeviceFailedException
					|| ex.getCause() instanceof StreamPoolClosedException
					|| ex.getCause() instanceof SessionTimeoutException
					|| ex.getCause() instanceof MemoryBudgetExceededException
					|| ex.getCause() instanceof DeviceOutOfMemoryException) {
				throw (RuntimeException) ex.getCause();
			}
		}
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
