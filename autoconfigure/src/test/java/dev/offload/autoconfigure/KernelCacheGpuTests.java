package dev.offload.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import dev.offload.autoconfigure.metrics.OffloadMetricsAutoConfiguration;
import dev.offload.backend.cuda.CudaBackendProvider;
import dev.offload.compile.KernelCache;
import dev.offload.compile.NvrtcUnavailableException;
import dev.offload.spi.BackendSelection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernel cache that {@code offload.kernels.*} configures and the kernel meters read
 * is the one the CUDA backend compiles through, on a GPU: its directory fills, its meters
 * count, its NVRTC library is the one loaded. Tagged {@code gpu}; skipped where CUDA is
 * not usable.
 */
@Tag("gpu")
@EnabledIf("cudaUsable")
class KernelCacheGpuTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, OffloadMetricsAutoConfiguration.class))
		.withUserConfiguration(KernelModulePreloaderTests.CudaOnlyModuleConfiguration.class)
		.withPropertyValues("offload.backend=cuda");

	static boolean cudaUsable() {
		return new CudaBackendProvider().probe().available();
	}

	@Test
	void startupWhenCacheDirSetShouldCompileIntoItAndCountOnTheKernelMeters(@TempDir Path tmp) throws IOException {
		Path cacheDir = tmp.resolve("kernels");
		this.contextRunner.withPropertyValues("offload.kernels.cache-dir=" + cacheDir).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(cacheDir).as("offload.kernels.cache-dir").isDirectory();
			try (Stream<Path> files = Files.list(cacheDir)) {
				assertThat(files).anySatisfy((file) -> assertThat(file.toString()).endsWith(".cubin"));
			}
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("offload.kernels.cache.requests").tag("result", "miss").functionCounter().count())
				.isPositive();
			assertThat(meters.get("offload.kernels.compile").functionTimer().count()).isPositive();
			BackendSelection selection = context.getBean(BackendSelection.class);
			assertThat(selection.provider()).isInstanceOf(CudaBackendProvider.class);
			assertThat(((CudaBackendProvider) selection.provider()).kernelCache())
				.isSameAs(context.getBean(KernelCache.class));
		});
	}

	@Test
	void startupWhenNvrtcLibraryDoesNotExistShouldFailNamingIt(@TempDir Path tmp) {
		this.contextRunner
			.withPropertyValues("offload.kernels.cache-dir=" + tmp, "offload.kernels.nvrtc-library=/nonexistent")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
					.isInstanceOf(NvrtcUnavailableException.class)
					.hasMessageContaining("tried /nonexistent");
			});
	}

}
