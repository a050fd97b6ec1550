package dev.offload.autoconfigure.diagnostics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.ClassPathResource;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.autoconfigure.leak.OffloadLeakDetectionAutoConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.template.Offload;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that each bad configuration fails startup with a {@link FailureAnalysis} that
 * says what is wrong and how to fix it.
 */
class OffloadFailureAnalysisTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class));

	@Test
	void repeatedDeviceIdShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.devices=0,0")
			.run(failsWith("Invalid value '0,0' for 'offload.devices': device 0 is listed twice",
					"Set 'offload.devices' to 'all' or to a list of device ids"));
	}

	@Test
	void initialSizeWhenZeroShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.stream-pool.initial-size=0")
			.run(failsWith("Invalid value '0' for 'offload.stream-pool.initial-size': initialSize must be at least 1, "
					+ "was 0", "Set 'offload.stream-pool.initial-size' to 1 or more."));
	}

	@Test
	void maxSizeWhenNegativeShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.stream-pool.max-size=-1")
			.run(failsWith("Invalid value '-1' for 'offload.stream-pool.max-size': maxSize must be 0 (unbounded) or "
					+ "positive, was -1", "Set 'offload.stream-pool.max-size' to 0 for a pool without bound"));
	}

	@Test
	void maxSizeWhenBelowInitialSizeShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.stream-pool.initial-size=8", "offload.stream-pool.max-size=4")
			.run(failsWith(
					"Invalid value '4' for 'offload.stream-pool.max-size': maxSize must be 0 (unbounded) or at "
							+ "least initialSize (8), was 4",
					"Set 'offload.stream-pool.max-size' to 0 for a pool without bound, or to at least "
							+ "'offload.stream-pool.initial-size' (8); or lower 'offload.stream-pool.initial-size'."));
	}

	@Test
	void borrowTimeoutWhenZeroShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.stream-pool.borrow-timeout=0s")
			.run(failsWith(
					"Invalid value '0s' for 'offload.stream-pool.borrow-timeout': borrowTimeout must be " + "positive",
					"Set 'offload.stream-pool.borrow-timeout' to a positive duration, such as 30s."));
	}

	@Test
	void devicesConfigMaxSizeWhenBelowSharedInitialSizeShouldNameTheDeviceProperty() {
		this.contextRunner
			.withPropertyValues("offload.host.device-count=2", "offload.devices-config.1.stream-pool.max-size=16")
			.run(failsWith(
					"Invalid value '16' for 'offload.devices-config.1.stream-pool.max-size': maxSize must be 0 "
							+ "(unbounded) or at least initialSize (32), was 16",
					"or to at least 'offload.stream-pool.initial-size' (32)"));
	}

	@Test
	void devicesConfigInitialSizeWhenZeroShouldNameTheDeviceProperty() {
		this.contextRunner.withPropertyValues("offload.devices-config.0.stream-pool.initial-size=0")
			.run(failsWith("'offload.devices-config.0.stream-pool.initial-size'",
					"Set 'offload.devices-config.0.stream-pool.initial-size' to 1 or more."));
	}

	@Test
	void devicesWhenUnknownIdShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.devices=0,5")
			.run(failsWith(
					"Invalid value '0,5' for 'offload.devices': device 5 does not exist; the backend's "
							+ "devices are [0]",
					"List only existing device ids in 'offload.devices' ([0]), or set it to 'all'."));
	}

	@Test
	void devicesWhenNotAnIdShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.devices=gpu0")
			.run(failsWith("'offload.devices': 'gpu0' is not a device id",
					"Set 'offload.devices' to 'all' or to a list of device ids, such as 0,1."));
	}

	@Test
	void devicesConfigWhenUnknownIdShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.devices-config.7.stream-pool.initial-size=4")
			.run(failsWith("Invalid value '7' for 'offload.devices-config.7': there is no device 7 among the devices "
					+ "in use [0]", "Remove 'offload.devices-config.7', or configure one of the devices [0]."));
	}

	@Test
	void devicesConfigWhenKeyIsNotAnIdShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.devices-config.gpu.stream-pool.initial-size=4")
			.run(failsWith("'offload.devices-config.gpu': 'gpu' is not a device id",
					"Key each entry of 'offload.devices-config' by a device id"));
	}

	@Test
	void backendWhenUnknownShouldListTheBackends() {
		this.contextRunner.withPropertyValues("offload.backend=gpu")
			.run(failsWith("'offload.backend' is 'gpu'", "Set 'offload.backend' to one of auto, cuda, host"));
	}

	@Test
	void backendWhenCudaWithoutUsableGpuShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.backend=cuda")
			.run(failsWith("Invalid value 'cuda' for 'offload.backend': CUDA is not usable: ",
					"check nvidia-smi and CUDA_VISIBLE_DEVICES"));
	}

	@Test
	void backendWhenCudaWithoutJCudaShouldFailWithAnalysis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("jcuda"))
			.withPropertyValues("offload.backend=cuda")
			.run(failsWith("CUDA is not usable: JCuda (jcuda.driver.JCudaDriver) is not on the classpath",
					"or set 'offload.backend' to 'auto' to fall back to the host emulation, or to 'host'."));
	}

	@Test
	void hostDeviceCountWhenZeroShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.host.device-count=0")
			.run(failsWith("Invalid value '0' for 'offload.host.device-count': deviceCount must be between 1 and 64",
					"Set 'offload.host.device-count' between 1 and 64."));
	}

	@Test
	void hostWorkersWhenZeroShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.host.workers-per-device=0")
			.run(failsWith("'offload.host.workers-per-device'", "Set 'offload.host.workers-per-device' to 1 or more"));
	}

	@Test
	void hostDeviceNamesWhenTooFewShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.host.device-count=2", "offload.host.device-names=only")
			.run(failsWith("'offload.host.device-names'",
					"List one name in 'offload.host.device-names' for each of the 2 device(s)"));
	}

	@Test
	void awaitTerminationWhenNegativeShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.shutdown.await-termination=-1s")
			.run(failsWith("'offload.shutdown.await-termination'",
					"Set 'offload.shutdown.await-termination' to 0s or more"));
	}

	@Test
	void bufferCacheWhenNegativeShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.buffer-cache.max-size=-1MB")
			.run(failsWith("'offload.buffer-cache.max-size'", "Set 'offload.buffer-cache.max-size' to 0B"));
	}

	@Test
	void deviceWhenABeanAsksForAnUnknownOneShouldFailWithAnalysis() {
		this.contextRunner.withUserConfiguration(UnknownDeviceConfiguration.class)
			.run(failsWith("Offload has no device with id 9; its devices are [0].", "Use one of the device ids [0]"));
	}

	@Test
	void asyncExecutorWhenNoSuchBeanShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.async.executor=gpuContinuations")
			.run(failsWith(
					"Invalid value 'gpuContinuations' for 'offload.async.executor': there is no bean named "
							+ "'gpuContinuations'",
					"Define an Executor or TaskExecutor bean named 'gpuContinuations'"));
		// Spring Boot's analysis of a missing bean, which runs beside Offload's, would
		// take a NoSuchBeanDefinitionException in the chain and name an injection point.
		this.contextRunner.withPropertyValues("offload.async.executor=gpuContinuations")
			.run((context) -> assertThat(context.getStartupFailure()).satisfies((failure) -> {
				for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
					assertThat(cause)
						.isNotInstanceOf(org.springframework.beans.factory.NoSuchBeanDefinitionException.class);
				}
			}));
	}

	@Test
	void negativeBlasWorkspaceShouldFailWithAnalysis() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class))
			.withPropertyValues("offload.blas.workspace-size=-1MB")
			.run(failsWith("Invalid value '-1MB' for 'offload.blas.workspace-size'",
					"Set 'offload.blas.workspace-size' to 0 or more"));
	}

	@Test
	void asyncExecutorWhenBeanIsNoExecutorShouldFailWithAnalysis() {
		this.contextRunner.withPropertyValues("offload.async.executor=notAnExecutor")
			.withBean("notAnExecutor", String.class, () -> "text")
			.run(failsWith("Invalid value 'notAnExecutor' for 'offload.async.executor': bean 'notAnExecutor' is a "
					+ "java.lang.String, not an Executor", "Define an Executor or TaskExecutor bean named"));
	}

	@Test
	void durationWhenNegativeInAFileShouldShowItAsTypedAndWhereItIs() {
		this.contextRunner.withInitializer((context) -> addProperties(context, "offload-negative.properties"))
			.run(failsWith("Invalid value '-5s' for 'offload.shutdown.await-termination': awaitTermination must be at "
					+ "least 0, was PT-5S\n    Origin: class path resource [offload-negative.properties] - 2:36",
					"Set 'offload.shutdown.await-termination' to 0s or more"));
	}

	@Test
	void dataSizeWhenNegativeShouldShowItAsTyped() {
		this.contextRunner.withPropertyValues("offload.buffer-cache.max-size=-1GB")
			.run(failsWith("Invalid value '-1GB' for 'offload.buffer-cache.max-size'", "to 0B (no cache) or more"));
	}

	@Test
	void leakDetectionThresholdWhenNegativeShouldFailWithAnalysis() {
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadLeakDetectionAutoConfiguration.class))
			.withPropertyValues("offload.leak-detection-threshold=-30s")
			.run(failsWith(
					"Invalid value '-30s' for 'offload.leak-detection-threshold': leakDetectionThreshold must "
							+ "be at least 0",
					"Set 'offload.leak-detection-threshold' to a positive duration, such as 30s, "
							+ "or to 0s to turn leak detection off."));
	}

	@Test
	void propertyWhenMisspeltShouldNameTheNearestOne() {
		this.contextRunner.withPropertyValues("offload.stream-pool.inital-size=8")
			.run(failsWith("'offload.stream-pool.inital-size' is not an Offload property (set to '8' in ",
					"Rename 'offload.stream-pool.inital-size' to 'offload.stream-pool.initial-size' if that is what "
							+ "you meant, or remove it."));
	}

	@Test
	void propertyWhenMisspeltShouldNeverSuggestTheTestNamespace() {
		this.contextRunner.withPropertyValues("offload.host.workers=4")
			.run(failsWith("the nearest one is 'offload.host.workers-per-device'.",
					"to 'offload.host.workers-per-device'"));
		this.contextRunner.withPropertyValues("offload.tset=1")
			.run(failsWith("'offload.tset' is not an Offload property", "or remove it."));
		this.contextRunner.withPropertyValues("offload.tset=1").run((context) -> {
			assertThat(analyze(context.getStartupFailure()).getDescription()).doesNotContain("offload.test");
		});
	}

	@Test
	void propertyWhenMisspeltUnderADeviceShouldKeepTheDeviceKey() {
		this.contextRunner.withPropertyValues("offload.devices-config.1.stream-pool.max-szie=8")
			.run(failsWith("the nearest one is 'offload.devices-config.1.stream-pool.max-size'.",
					"to 'offload.devices-config.1.stream-pool.max-size'"));
	}

	@Test
	void offloadDeviceWhenItDoesNotExistShouldFailNamingTheBeanAndMethod() {
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadTemplateAutoConfiguration.class))
			.withPropertyValues("offload.host.device-count=2")
			.withUserConfiguration(SeventhDeviceConfiguration.class)
			.run(failsWith(
					"@Offload(device = 7) on SeventhDeviceService.work() of bean 'seventhDeviceService' names "
							+ "a device that does not exist; the devices are [0, 1].",
					"Change @Offload(device = 7) on SeventhDeviceService.work() to one of the device ids [0, 1]"));
	}

	@Test
	void offloadDeviceWhenItExistsShouldStart() {
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadTemplateAutoConfiguration.class))
			.withPropertyValues("offload.host.device-count=8")
			.withUserConfiguration(SeventhDeviceConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void offloadTimeoutWhenNotADurationShouldFailNamingTheBeanMethodValueAndFormat() {
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadTemplateAutoConfiguration.class))
			.withUserConfiguration(SoonTimeoutConfiguration.class)
			.run(failsWith(
					"@Offload on SoonTimeoutService.work() of bean 'soonTimeoutService' is invalid: @Offload "
							+ "timeout 'soon' is not a positive duration",
					"Set the timeout of @Offload on SoonTimeoutService.work() to a positive duration with a unit "
							+ "(ns, us, ms, s, m, h, d) such as 500ms or 2s, or an ISO-8601 duration such as PT2S"));
	}

	private static void addProperties(ConfigurableApplicationContext context, String resource) {
		try {
			new PropertiesPropertySourceLoader().load(resource, new ClassPathResource(resource))
				.forEach(context.getEnvironment().getPropertySources()::addFirst);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static ContextConsumer<AssertableApplicationContext> failsWith(String description, String action) {
		return (context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis).as("failure analysis").isNotNull();
			assertThat(analysis.getDescription()).contains(description);
			assertThat(analysis.getAction()).contains(action);
		};
	}

	private static FailureAnalysis analyze(Throwable failure) {
		List<FailureAnalyzer> analyzers = new ArrayList<>(
				List.of(new InvalidOffloadConfigurationFailureAnalyzer(), new NoSuchDeviceFailureAnalyzer(),
						new BackendBindFailureAnalyzer(), new UnknownOffloadDeviceFailureAnalyzer(),
						new UnknownOffloadPropertyFailureAnalyzer(), new InvalidOffloadAnnotationFailureAnalyzer()));
		AnnotationAwareOrderComparator.sort(analyzers);
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		return null;
	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownDeviceConfiguration {

		@Bean
		Device ninthDevice(DeviceRegistry registry) {
			return registry.device(9);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SeventhDeviceConfiguration {

		@Bean
		SeventhDeviceService seventhDeviceService() {
			return new SeventhDeviceService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SoonTimeoutConfiguration {

		@Bean
		SoonTimeoutService soonTimeoutService() {
			return new SoonTimeoutService();
		}

	}

	static class SoonTimeoutService {

		@Offload(timeout = "soon")
		void work() {
		}

	}

	static class SeventhDeviceService {

		@Offload(device = 7)
		void work() {
		}

	}

}
