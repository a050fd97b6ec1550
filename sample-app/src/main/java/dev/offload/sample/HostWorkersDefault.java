package dev.offload.sample;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * On the host emulation, kernels run on worker threads of this JVM, which compete for the
 * CPUs with the threads that read, parse and answer requests: with one worker per CPU, a
 * flood of Monte Carlo kernels takes every CPU and price requests miss their 1 s deadline
 * while waiting for one, whatever their stream priority. So the sample's default is one
 * worker fewer than the CPUs (at least 1), which leaves a CPU to the request threads;
 * {@code offload.host.workers-per-device}, set anywhere, wins. Nothing changes on a GPU.
 */
class HostWorkersDefault implements EnvironmentPostProcessor, Ordered {

	static final String PROPERTY = "offload.host.workers-per-device";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		int workers = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
		// Last: the lowest precedence, below application.yml and the command line.
		environment.getPropertySources()
			.addLast(new MapPropertySource("sampleHostWorkersDefault", Map.of(PROPERTY, workers)));
	}

	@Override
	public int getOrder() {
		// After the config data (application.yml) has been added.
		return Ordered.LOWEST_PRECEDENCE;
	}

}
