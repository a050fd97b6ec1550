package dev.offload.sample.web;

import java.net.URI;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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

	OptionsController(OptionPricingService pricing, MonteCarloService monteCarlo, MonteCarloJobs jobs,
			ElementValidator elements) {
		this.pricing = pricing;
		this.monteCarlo = monteCarlo;
		this.jobs = jobs;
		this.elements = elements;
	}

	/**
	 * Prices a batch of European options. The batch's size is validated first; only a
	 * batch of an accepted size has its options validated, one by one.
	 * @param request the options
	 * @return the prices
	 */
	@PostMapping("/price")
	public PricedBatch price(@Valid @RequestBody PriceRequest request) {
		this.elements.validate("options", request.options());
		return this.pricing.price(request.options());
	}

	/**
	 * Starts a Monte Carlo simulation.
	 * @param request the option and the number of paths
	 * @return 202 with the job's status and location
	 */
	@PostMapping("/monte-carlo")
	public ResponseEntity<JobStatus> monteCarlo(@Valid @RequestBody MonteCarloRequest request) {
		CompletableFuture<MonteCarloResult> job = this.monteCarlo.simulate(request);
		rejectIfRefused(job);
		UUID id = this.jobs.add(job);
		JobStatus status = JobStatus.of(id, job);
		return ResponseEntity.accepted().location(URI.create(status.location())).body(status);
	}

	/**
	 * A job that could not even start (a full pool, a failed or closed device) is the
	 * request's failure, answered like a light request's (503), not a job to poll.
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
					|| ex.getCause() instanceof SessionTimeoutException) {
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
		return this.jobs.find(id)
			.map((job) -> JobStatus.of(id, job))
			.orElseThrow(() -> new ResponseStatusException(NOT_FOUND, "No Monte Carlo job " + id));
	}

}
