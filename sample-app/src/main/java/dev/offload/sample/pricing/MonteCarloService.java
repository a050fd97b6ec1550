package dev.offload.sample.pricing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.stereotype.Service;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.KernelResult;
import dev.offload.template.Offload;
import dev.offload.template.OffloadTemplate;

/**
 * Prices a European call by Monte Carlo simulation on the device: the heavy requests of
 * the sample. The method returns at once; its session stays open until the simulation is
 * done.
 */
@Service
public class MonteCarloService {

	private static final KernelRef MONTE_CARLO = KernelRef.of(OptionKernels.MODULE, OptionKernels.MONTE_CARLO);

	private static final int BLOCK = 256;

	private static final int MAX_THREADS = 64 * 1024;

	private final OffloadTemplate template;

	/**
	 * Creates the service.
	 * @param template the template that joins the session {@code @Offload} opens
	 */
	public MonteCarloService(OffloadTemplate template) {
		this.template = template;
	}

	/**
	 * Simulates {@code request.paths()} paths; each device thread simulates an even share
	 * and writes its payoff sum and sum of squares, which the host reduces.
	 * @param request the option and the number of paths
	 * @return the price, completed when the device's work is done
	 */
	@Offload
	public CompletableFuture<MonteCarloResult> simulate(MonteCarloRequest request) {
		int threads = threadsFor(request.paths());
		int pathsPerThread = (request.paths() + threads - 1) / threads;
		long seed = (request.seed() != null) ? request.seed() : ThreadLocalRandom.current().nextLong();
		// Inside this method's session: runAsync joins it and completes once the
		// simulation is done.
		CompletableFuture<KernelResult> partials = this.template.kernel(MONTE_CARLO)
			.config(LaunchConfig.of(threads / BLOCK, BLOCK))
			.arg(pathsPerThread)
			.arg(request.spot())
			.arg(request.strike())
			.arg(request.maturity())
			.arg(request.rate())
			.arg(request.volatility())
			.arg(seed)
			.outDoubles(2 * threads)
			.runAsync();
		// The closed form for comparison, on the CPU: pricing it in this session would
		// wait for the simulation.
		double exact = OptionKernels.closedFormCall(request.spot(), request.strike(), request.maturity(),
				request.rate(), request.volatility());
		long paths = (long) pathsPerThread * threads;
		return partials.thenApply((result) -> reduce(result.doubles(0), threads, paths, exact, result.device().id()));
	}

	static int threadsFor(int paths) {
		int threads = Math.min(MAX_THREADS, Math.max(BLOCK, paths / 256));
		return (threads / BLOCK) * BLOCK;
	}

	private static MonteCarloResult reduce(double[] partial, int threads, long paths, double exact, int device) {
		double sum = 0;
		double sumSquares = 0;
		for (int i = 0; i < threads; i++) {
			sum += partial[2 * i];
			sumSquares += partial[2 * i + 1];
		}
		double mean = sum / paths;
		double variance = Math.max(0, sumSquares / paths - mean * mean);
		return new MonteCarloResult(mean, Math.sqrt(variance / paths), paths, exact, device);
	}

}
