package dev.offload.spring.metrics;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.offload.compile.KernelCache;

/**
 * Binds a {@link KernelCache}'s counts: {@code offload.kernels.cache.requests} tagged
 * {@code result=hit|miss} (module loads from CUDA source served without or with
 * compiling) and the {@code offload.kernels.compile} timer (compilations and their time).
 */
public final class OffloadKernelMetrics implements MeterBinder {

	private final KernelCache cache;

	/**
	 * Creates the binder.
	 * @param cache the kernel cache to observe
	 */
	public OffloadKernelMetrics(KernelCache cache) {
		this.cache = cache;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("offload.kernels.cache.requests", this.cache, (cache) -> cache.statistics().hits())
			.description("Module loads from CUDA source served by the kernel cache, without compiling")
			.baseUnit("requests")
			.tag("result", "hit")
			.register(registry);
		FunctionCounter.builder("offload.kernels.cache.requests", this.cache, (cache) -> cache.statistics().misses())
			.description("Module loads from CUDA source that had to compile")
			.baseUnit("requests")
			.tag("result", "miss")
			.register(registry);
		FunctionTimer
			.builder("offload.kernels.compile", this.cache, (cache) -> cache.statistics().compilations(),
					(cache) -> cache.statistics().compileTimeNanos(), TimeUnit.NANOSECONDS)
			.description("Compilations of CUDA source by NVRTC and the time they took")
			.register(registry);
	}

}
