package dev.offload.sample.web;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.offload.sample.pricing.MonteCarloResult;

/**
 * A Monte Carlo job as the API shows it.
 *
 * @param id the job's id
 * @param status {@code QUEUED} (waiting for a Monte Carlo slot), {@code RUNNING},
 * {@code DONE} or {@code FAILED}
 * @param location where to read the job
 * @param result the price once done
 * @param error what went wrong, if it failed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobStatus(UUID id, String status, String location, MonteCarloResult result, String error) {

	static JobStatus queued(UUID id) {
		return new JobStatus(id, "QUEUED", location(id), null, null);
	}

	static JobStatus running(UUID id) {
		return new JobStatus(id, "RUNNING", location(id), null, null);
	}

	static JobStatus of(UUID id, MonteCarloJobs.Outcome outcome) {
		return (outcome.error() == null) ? new JobStatus(id, "DONE", location(id), outcome.result(), null)
				: new JobStatus(id, "FAILED", location(id), null, outcome.error());
	}

	private static String location(UUID id) {
		return "/api/options/monte-carlo/" + id;
	}

}
