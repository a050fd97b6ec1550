package dev.offload.autoconfigure.metrics;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.offload.DeviceRegistry;
import dev.offload.compile.KernelCache;
import dev.offload.leak.LeakDetector;
import dev.offload.spring.metrics.OffloadBatchMetrics;
import dev.offload.spring.metrics.OffloadKernelMetrics;
import dev.offload.spring.metrics.OffloadMemoryMetrics;
import dev.offload.spring.metrics.OffloadPoolMetrics;
import dev.offload.spring.metrics.OffloadQueueMetrics;
import dev.offload.spring.metrics.OffloadSessionMetrics;
import dev.offload.spring.metrics.OffloadTenantMetrics;
import dev.offload.template.OffloadTemplate;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for Offload's meters: {@link OffloadPoolMetrics} (pool gauges and
 * counters), {@link OffloadQueueMetrics} (the work waiting on each device, for load-aware
 * gateways), {@link OffloadMemoryMetrics} (device memory and host staging, the cache,
 * driver allocations, the budget), {@link OffloadSessionMetrics} (timers, fed as an
 * {@link dev.offload.OffloadListener}), {@link OffloadBatchMetrics} (batch sizes and
 * queue delays, fed as a {@link dev.offload.template.BatchListener}),
 * {@link OffloadTenantMetrics} (each tenant's sessions, fed as an
 * {@link dev.offload.OffloadListener}) and {@link OffloadKernelMetrics} (the kernel
 * cache's hits, misses and compile time). Boot binds them to its meter registries.
 */
@AutoConfiguration(afterName = { "dev.offload.autoconfigure.OffloadAutoConfiguration",
		OffloadMetricsAutoConfiguration.BOOT_METRICS + "MetricsAutoConfiguration",
		OffloadMetricsAutoConfiguration.BOOT_METRICS + "CompositeMeterRegistryAutoConfiguration",
		OffloadMetricsAutoConfiguration.BOOT_METRICS + "export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ DeviceRegistry.class, MeterRegistry.class })
public final class OffloadMetricsAutoConfiguration {

	static final String BOOT_METRICS = "org.springframework.boot.micrometer.metrics.autoconfigure.";

	@Bean
	@ConditionalOnMissingBean
	OffloadPoolMetrics offloadPoolMetrics(DeviceRegistry registry, ObjectProvider<LeakDetector> leakDetector) {
		return new OffloadPoolMetrics(registry, leakDetector.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadQueueMetrics offloadQueueMetrics(DeviceRegistry registry, ObjectProvider<OffloadTemplate> template) {
		return new OffloadQueueMetrics(registry, () -> {
			OffloadTemplate available = template.getIfAvailable();
			return (available != null) ? available.batchers() : List.of();
		});
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadBatchMetrics offloadBatchMetrics() {
		return new OffloadBatchMetrics();
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadMemoryMetrics offloadMemoryMetrics(DeviceRegistry registry) {
		return new OffloadMemoryMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadSessionMetrics offloadSessionMetrics() {
		return new OffloadSessionMetrics();
	}

	@Bean
	@ConditionalOnMissingBean
	OffloadTenantMetrics offloadTenantMetrics(ObjectProvider<DeviceRegistry> registry) {
		return new OffloadTenantMetrics(() -> registry.getObject().tenantPolicy());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(KernelCache.class)
	OffloadKernelMetrics offloadKernelMetrics(KernelCache kernelCache) {
		return new OffloadKernelMetrics(kernelCache);
	}

}
