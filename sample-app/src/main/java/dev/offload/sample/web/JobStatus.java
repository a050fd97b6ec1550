package dev.offload.sample.web;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.offload.sample.pricing.MonteCarloResult;

/**
 * A Monte Carlo job as the API shows it.
 *
 * @param id the job's id
 * @param status {@code RUNNING}, {@code DONE} or {@code FAILED}
 * @param location where to read the job
 * @param result the price once done
 * @param error what went wrong, if it failed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobStatus(UUID id, String status, String location, MonteCarloResult result, String error) {

	static JobStatus of(UUID id, CompletableFuture<MonteCarloResult> job) {
		String location = "/api/options/monte-carlo/" + id;
		if (!job.isDone()) {
			return new JobStatus(id, "RUNNING", location, null, null);
		}
		try {
			return new JobStatus(id, "DONE", location, job.join(), null);
		}
		catch (CompletionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			return new JobStatus(id, "FAILED", location, null, cause.getMessage());
		}
	}

}
