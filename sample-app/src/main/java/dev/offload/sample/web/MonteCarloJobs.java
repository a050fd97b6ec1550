package dev.offload.sample.web;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.springframework.stereotype.Component;

import dev.offload.sample.pricing.MonteCarloResult;

/**
 * The Monte Carlo jobs started, by id; keeps the last {@value #MAX_JOBS}.
 */
@Component
public class MonteCarloJobs {

	static final int MAX_JOBS = 1000;

	private final Map<UUID, CompletableFuture<MonteCarloResult>> jobs = new LinkedHashMap<>() {

		@Override
		protected boolean removeEldestEntry(Map.Entry<UUID, CompletableFuture<MonteCarloResult>> eldest) {
			return size() > MAX_JOBS;
		}

	};

	synchronized UUID add(CompletableFuture<MonteCarloResult> job) {
		UUID id = UUID.randomUUID();
		this.jobs.put(id, job);
		return id;
	}

	synchronized Optional<CompletableFuture<MonteCarloResult>> find(UUID id) {
		return Optional.ofNullable(this.jobs.get(id));
	}

}
