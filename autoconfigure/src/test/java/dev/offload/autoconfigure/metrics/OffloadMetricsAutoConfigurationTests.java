package dev.offload.autoconfigure.metrics;

import java.util.concurrent.CompletableFuture;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.HostDeviceRegistryConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.autoconfigure.leak.OffloadLeakDetectionAutoConfiguration;
import dev.offload.blas.Blas;
import dev.offload.compile.KernelCache;
import dev.offload.spring.metrics.OffloadKernelMetrics;
import dev.offload.spring.metrics.OffloadPoolMetrics;
import dev.offload.spring.metrics.OffloadQueueMetrics;
import dev.offload.spring.metrics.OffloadSessionMetrics;
import dev.offload.template.BatchListener;
import dev.offload.template.BatchPolicy;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadMetricsAutoConfiguration}.
 */
class OffloadMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
						OffloadLeakDetectionAutoConfiguration.class, OffloadMetricsAutoConfiguration.class))
		.withUserConfiguration(HostDeviceRegistryConfiguration.class);

	@Test
	void batchMetersShouldBeRegisteredWhenABatcherStartsWithEveryBatchListenerBean() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class))
			.run((context) -> {
				// The batch meters and the tenant meters are two listeners: both are
				// told.
				assertThat(context.getBeansOfType(BatchListener.class)).hasSizeGreaterThan(1);
				context.getBean(OffloadTemplate.class)
					.batcher("idle", (items) -> CompletableFuture.completedFuture(items), BatchPolicy.DEFAULTS);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.find("offload.batch.batches").tag("kernel", "idle").counter()).isNotNull();
			});
	}

	@Test
	void metricsWhenMeterRegistryExistsShouldBindPoolMetersAndRecordBorrows() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(OffloadPoolMetrics.class).hasSingleBean(OffloadSessionMetrics.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession(1)) {
				session.streamId();
				assertThat(meters.get("offload.streams.active").tag("device", "1").gauge().value()).isOne();
			}
			assertThat(meters.get("offload.streams.acquire").tag("device", "1").timer().count()).isOne();
			assertThat(meters.find("offload.sessions.leaked").meters()).isEmpty();
		});
	}

	@Test
	void metricsWhenMeterRegistryExistsShouldBindTheQueuedGaugeOfEachDevice() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(OffloadQueueMetrics.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("offload.queued").tag("device", "0").gauge().value()).isZero();
			assertThat(meters.get("offload.queued").tag("device", "1").gauge().value()).isZero();
		});
	}

	@Test
	void metricsShouldTimeEachLibraryCallByOperation() {
		this.contextRunner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession(0)) {
				DeviceBuffer x = session.allocate(2 * Float.BYTES);
				session.fill(x, (byte) 0);
				Blas.on(session).saxpy(2, 1, x, 1, x, 1);
				Blas.on(session).saxpy(2, 1, x, 1, x, 1);
				Blas.on(session).sdot(2, x, 1, x, 1, x);
			}
			assertThat(meters.get("offload.library.calls")
				.tags("device", "0", "library", "blas", "op", "saxpy", "outcome", "success")
				.timer()
				.count()).isEqualTo(2);
			assertThat(meters.get("offload.library.calls").tags("op", "sdot").timer().count()).isOne();
		});
	}

	@Test
	void metricsWhenLeakDetectionIsOnShouldBindTheLeakedCounter() {
		this.contextRunner.withPropertyValues("offload.leak-detection-threshold=1m")
			.run((context) -> assertThat(
					context.getBean(MeterRegistry.class).get("offload.sessions.leaked").functionCounters())
				.hasSize(2));
	}

	@Test
	void metricsWhenKernelCacheExistsShouldBindItsRequestsAndCompileMeters() {
		this.contextRunner.withBean(KernelCache.class, () -> KernelCache.create(null, null)).run((context) -> {
			assertThat(context).hasSingleBean(OffloadKernelMetrics.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("offload.kernels.cache.requests").tag("result", "hit").functionCounter().count())
				.isZero();
			assertThat(meters.get("offload.kernels.cache.requests").tag("result", "miss").functionCounter().count())
				.isZero();
			assertThat(meters.get("offload.kernels.compile").functionTimer().count()).isZero();
		});
	}

	@Test
	void metricsWhenNoKernelCacheShouldNotBindKernelMeters() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(OffloadKernelMetrics.class));
	}

	@Test
	void metricsWhenNoMeterRegistryShouldBackOff() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OffloadMetricsAutoConfiguration.class))
			.withUserConfiguration(HostDeviceRegistryConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(OffloadPoolMetrics.class)
				.doesNotHaveBean(OffloadSessionMetrics.class));
	}

	@Test
	void metricsWhenNoDeviceRegistryShouldBackOff() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, OffloadMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).hasSingleBean(MeterRegistry.class)
				.doesNotHaveBean(OffloadPoolMetrics.class));
	}

}
