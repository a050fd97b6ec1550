package dev.offload.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.CountDownLatch;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.unit.DataSize;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OffloadAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class OffloadAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class));

	@Test
	void registryWhenNoGpuShouldUseHostBackend(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(Backend.class).hasSingleBean(DeviceRegistry.class);
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(registry.backend().name()).isEqualTo(HostBackend.NAME);
			assertThat(registry.ids()).containsExactly(0);
			assertThat(context).getBeanNames(StreamPool.class).containsExactly("streamPool0");
			assertThat(output).containsOnlyOnce("Offload uses the host backend");
		});
	}

	@Test
	void registryWhenStartedShouldLogEachDevicesGpuSharing(CapturedOutput output) {
		this.contextRunner.withPropertyValues("offload.backend=host", "offload.host.device-count=2").run((context) -> {
			assertThat(context).hasSingleBean(DeviceRegistry.class);
			assertThat(output).containsOnlyOnce("GPU sharing of device 0 (Host device 0): exclusive")
				.containsOnlyOnce("GPU sharing of device 1 (Host device 1): exclusive");
		});
	}

	@Test
	void asyncExecutorWhenUnsetShouldBeOffloadsOwn() {
		this.contextRunner.withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
			.run((context) -> assertThat(context.getBean(DeviceRegistry.class).completionExecutor())
				.isSameAs(DeviceRegistry.defaultCompletionExecutor()));
	}

	@Test
	void asyncExecutorWhenNamedShouldCompleteFuturesOnThatBean() {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setThreadNamePrefix("gpu-continuations-");
		this.contextRunner.withPropertyValues("offload.async.executor=gpuContinuations")
			.withBean("gpuContinuations", ThreadPoolTaskExecutor.class, () -> executor)
			.run((context) -> {
				DeviceRegistry registry = context.getBean(DeviceRegistry.class);
				assertThat(registry.completionExecutor()).isSameAs(executor);
				CountDownLatch gate = new CountDownLatch(1);
				ModuleDefinition gated = ModuleDefinition.builder("gated")
					.hostKernel("waitForGate", List.of(), (thread) -> awaitQuietly(gate))
					.build();
				OffloadSession session = registry.openSession();
				session.launch(session.device().loadModule(gated).kernel("waitForGate"), LaunchConfig.of(1, 1));
				// Attached while the work is held: on a busy machine the work could
				// otherwise end first, and thenApply would run on this thread.
				CompletableFuture<String> continuation = session.closeAsync()
					.thenApply((ignored) -> Thread.currentThread().getName());
				gate.countDown();
				// Nobody joins: the completion thread saw the work done and handed the
				// future's completion to the executor. (A joiner would run it itself.)
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(continuation::isDone);
				assertThat(continuation.getNow("absent")).startsWith("gpu-continuations-");
			});
	}

	@Test
	void registryWhenNoNvidiaDriverShouldSayWhyInTheLogLine(CapturedOutput output) {
		org.junit.jupiter.api.Assumptions.assumeFalse(
				java.nio.file.Files.exists(java.nio.file.Path.of("/dev/nvidiactl")), "an NVIDIA driver is here");
		this.contextRunner.run((context) -> assertThat(output).containsOnlyOnce(
				"Offload uses the host backend (devices emulated on the CPU): no NVIDIA driver here: /dev/nvidiactl "
						+ "does not exist"));
	}

	@Test
	void registryWhenJCudaIsNotOnClasspathShouldUseHostBackend(CapturedOutput output) {
		this.contextRunner.withClassLoader(new FilteredClassLoader("jcuda")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DeviceRegistry.class).backend().name()).isEqualTo(HostBackend.NAME);
			assertThat(context).getBeanNames(StreamPool.class).containsExactly("streamPool0");
			assertThat(output).containsOnlyOnce(
					"Offload uses the host backend (devices emulated on the CPU): JCuda (jcuda.driver.JCudaDriver) "
							+ "is not on the classpath");
		});
	}

	@Test
	void backendWhenHostIsConfiguredShouldNotExplainWhy(CapturedOutput output) {
		this.contextRunner.withPropertyValues("offload.backend=host").run((context) -> {
			assertThat(context.getBean(DeviceRegistry.class).backend().name()).isEqualTo(HostBackend.NAME);
			assertThat(output).doesNotContain("Offload uses the host backend");
		});
	}

	@Test
	void streamPoolsWhenThreeEmulatedDevicesShouldBeThreeBeans() {
		this.contextRunner.withPropertyValues("offload.host.device-count=3").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(context).getBeanNames(StreamPool.class)
				.containsExactlyInAnyOrder("streamPool0", "streamPool1", "streamPool2");
			for (Device device : registry.devices()) {
				assertThat(context.getBean("streamPool" + device.id())).isSameAs(device.streamPool());
			}
		});
	}

	@Test
	void streamPoolListWhenInjectedShouldHoldEveryPool() {
		this.contextRunner.withPropertyValues("offload.host.device-count=3")
			.withUserConfiguration(PoolListConfiguration.class)
			.run((context) -> assertThat(context.getBean(PoolList.class).pools())
				.extracting((pool) -> pool.device().id())
				.containsExactlyInAnyOrder(0, 1, 2));
	}

	@Test
	void streamPoolsWhenDevicesListedShouldBeThoseDevices() {
		this.contextRunner.withPropertyValues("offload.host.device-count=3", "offload.devices=0,2").run((context) -> {
			assertThat(context.getBean(DeviceRegistry.class).ids()).containsExactly(0, 2);
			assertThat(context).getBeanNames(StreamPool.class).containsExactlyInAnyOrder("streamPool0", "streamPool2");
		});
	}

	@Test
	void streamPoolWhenDefaultShouldUseDefaults() {
		this.contextRunner.run((context) -> assertThat(context.getBean("streamPool0", StreamPool.class).config())
			.isEqualTo(StreamPoolConfig.DEFAULTS));
	}

	@Test
	void streamPoolPropertiesShouldReachEveryPool() {
		this.contextRunner
			.withPropertyValues("offload.host.device-count=2", "offload.stream-pool.initial-size=4",
					"offload.stream-pool.max-size=16", "offload.stream-pool.borrow-timeout=2s")
			.run((context) -> assertThat(context.getBeansOfType(StreamPool.class).values())
				.extracting(StreamPool::config)
				.containsOnly(new StreamPoolConfig(4, 16, Duration.ofSeconds(2))));
	}

	@Test
	void devicesConfigShouldApplyToItsDeviceOnly() {
		this.contextRunner
			.withPropertyValues("offload.host.device-count=3", "offload.stream-pool.initial-size=4",
					"offload.devices-config.1.stream-pool.initial-size=8",
					"offload.devices-config.1.stream-pool.max-size=64")
			.run((context) -> {
				StreamPoolConfig shared = new StreamPoolConfig(4, StreamPoolConfig.DEFAULT_MAX_SIZE,
						Duration.ofSeconds(30));
				assertThat(context.getBean("streamPool0", StreamPool.class).config()).isEqualTo(shared);
				assertThat(context.getBean("streamPool1", StreamPool.class).config())
					.isEqualTo(new StreamPoolConfig(8, 64, Duration.ofSeconds(30)));
				assertThat(context.getBean("streamPool2", StreamPool.class).config()).isEqualTo(shared);
			});
	}

	@Test
	void devicesConfigWhenSetInYamlStyleShouldMergeFieldByField() {
		this.contextRunner
			.withPropertyValues("offload.host.device-count=2", "offload.stream-pool.max-size=100",
					"offload.stream-pool.borrow-timeout=5s", "offload.devices-config[1].stream-pool.borrow-timeout=1s")
			.run((context) -> assertThat(context.getBean("streamPool1", StreamPool.class).config())
				.isEqualTo(new StreamPoolConfig(32, 100, Duration.ofSeconds(1))));
	}

	@Test
	void devicesConfigWhenInYamlShouldBind() {
		String yaml = """
				offload:
				  host:
				    device-count: 3
				  stream-pool:
				    max-size: 128
				  devices-config:
				    "1":
				      stream-pool:
				        initial-size: 64
				    2: { stream-pool: { borrow-timeout: 5s } }
				""";
		this.contextRunner.withInitializer((context) -> addYaml(context, yaml)).run((context) -> {
			assertThat(context.getBean("streamPool0", StreamPool.class).config())
				.isEqualTo(new StreamPoolConfig(32, 128, Duration.ofSeconds(30)));
			assertThat(context.getBean("streamPool1", StreamPool.class).config())
				.isEqualTo(new StreamPoolConfig(64, 128, Duration.ofSeconds(30)));
			assertThat(context.getBean("streamPool2", StreamPool.class).config())
				.isEqualTo(new StreamPoolConfig(32, 128, Duration.ofSeconds(5)));
		});
	}

	@Test
	void hostPropertiesShouldReachTheDevices() {
		this.contextRunner
			.withPropertyValues("offload.host.device-count=2", "offload.host.device-names=left,right",
					"offload.host.workers-per-device=3", "offload.host.memory=64MB")
			.run((context) -> {
				List<Device> devices = context.getBean(DeviceRegistry.class).devices();
				assertThat(devices).extracting(Device::name).containsExactly("left", "right");
				assertThat(devices).extracting((device) -> device.info().multiprocessorCount()).containsOnly(3);
				assertThat(devices).extracting((device) -> device.info().totalMemoryBytes())
					.containsOnly(DataSize.ofMegabytes(64).toBytes());
			});
	}

	@Test
	void bufferCacheMaxSizeShouldBoundEachDeviceCache() {
		// A budget that leaves the cache no room beyond its bound.
		this.contextRunner.withPropertyValues("offload.buffer-cache.max-size=1KB", "offload.memory.budget=2KB")
			.run((context) -> {
				Device device = context.getBean(DeviceRegistry.class).device(0);
				device.allocate(1024).close();
				device.allocate(2048).close();
				assertThat(device.cachedBufferBytes()).isEqualTo(1024);
			});
	}

	@Test
	void memoryBudgetWhenNotSetShouldBeNinetyPercentOfEachDevice() {
		this.contextRunner.withPropertyValues("offload.host.memory=1000MB").run((context) -> {
			Device device = context.getBean(DeviceRegistry.class).device(0);
			assertThat(device.memoryStatistics().budgetBytes()).isEqualTo(DataSize.ofMegabytes(900).toBytes());
		});
	}

	@Test
	void memoryBudgetWhenBytesOrShareOrUnlimitedShouldBeEnforcedAsSet() {
		this.contextRunner.withPropertyValues("offload.host.memory=1GB", "offload.memory.budget=64MB")
			.run((context) -> assertThat(
					context.getBean(DeviceRegistry.class).device(0).memoryStatistics().budgetBytes())
				.isEqualTo(DataSize.ofMegabytes(64).toBytes()));
		this.contextRunner.withPropertyValues("offload.host.memory=1000MB", "offload.memory.budget=50%")
			.run((context) -> assertThat(
					context.getBean(DeviceRegistry.class).device(0).memoryStatistics().budgetBytes())
				.isEqualTo(DataSize.ofMegabytes(500).toBytes()));
		this.contextRunner.withPropertyValues("offload.memory.budget=unlimited")
			.run((context) -> assertThat(
					context.getBean(DeviceRegistry.class).device(0).memoryStatistics().isBudgeted())
				.isFalse());
	}

	@Test
	void memoryBudgetWhenNotBytesOrAShareShouldFailStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.memory.budget=150%").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("memory.budget");
		});
		this.contextRunner.withPropertyValues("offload.memory.budget=lots").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("offload.memory.budget");
		});
	}

	@Test
	void propertiesShouldBindEveryKey() {
		this.contextRunner
			.withPropertyValues("offload.backend=host", "offload.devices=0", "offload.buffer-cache.max-size=1MB",
					"offload.shutdown.await-termination=3s", "offload.leak-detection-threshold=20s")
			.run((context) -> {
				OffloadProperties properties = context.getBean(OffloadProperties.class);
				assertThat(properties.getBackend()).isEqualTo(OffloadProperties.BackendType.HOST);
				assertThat(properties.getDevices()).containsExactly("0");
				assertThat(properties.getBufferCache().getMaxSize()).isEqualTo(DataSize.ofMegabytes(1));
				assertThat(properties.getShutdown().getAwaitTermination()).isEqualTo(Duration.ofSeconds(3));
				assertThat(properties.getLeakDetectionThreshold()).isEqualTo(Duration.ofSeconds(20));
			});
	}

	@Test
	void leakDetectionThresholdWhenNotSetShouldBeOff() {
		this.contextRunner.run(
				(context) -> assertThat(context.getBean(OffloadProperties.class).getLeakDetectionThreshold()).isNull());
	}

	@Test
	void listenersWhenDeclaredShouldAllBeCalledInOrder() {
		this.contextRunner.withUserConfiguration(ListenerConfiguration.class).run((context) -> {
			List<String> calls = context.getBean(ListenerConfiguration.class).calls;
			try (OffloadSession session = context.getBean(DeviceRegistry.class).openSession()) {
				assertThat(calls).containsExactly("first opened " + session.id(), "second opened " + session.id());
			}
		});
	}

	@Test
	void backendWhenUserDefinedShouldBeUsed() {
		this.contextRunner.withUserConfiguration(UserBackendConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Backend.class);
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(registry.backend()).isSameAs(context.getBean("userBackend"));
			assertThat(context).getBeanNames(StreamPool.class).containsExactlyInAnyOrder("streamPool0", "streamPool1");
		});
	}

	@Test
	void registryWhenUserDefinedShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserRegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(DeviceRegistry.class)
				.hasBean("userRegistry")
				.doesNotHaveBean(Backend.class);
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(context.getBean("streamPool0")).isSameAs(registry.device(0).streamPool());
		});
	}

	@Test
	void streamPoolsWhenUserDefinedShouldBackOff() {
		this.contextRunner.withPropertyValues("offload.host.device-count=2")
			.withUserConfiguration(UserStreamPoolConfiguration.class)
			.run((context) -> assertThat(context).getBeanNames(StreamPool.class).containsExactly("myPool"));
	}

	@Test
	void lifecycleWhenUserDefinedShouldBackOff() {
		this.contextRunner.withUserConfiguration(UserLifecycleConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(OffloadLifecycle.class).hasBean("userLifecycle"));
	}

	@Test
	void registryWhenContextClosesShouldBeClosed() {
		List<DeviceRegistry> registries = new ArrayList<>();
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			registry.openSession().close();
			registries.add(registry);
		});
		assertThat(registries).singleElement().satisfies((registry) -> {
			assertThat(registry.isClosed()).isTrue();
			assertThat(registry.device(0).streamPool().statistics().size()).isZero();
		});
	}

	private static void addYaml(ConfigurableApplicationContext context, String yaml) {
		try {
			List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("test.yml",
					new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
			sources.forEach(context.getEnvironment().getPropertySources()::addFirst);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class PoolListConfiguration {

		@Bean
		PoolList poolList(List<StreamPool> pools) {
			return new PoolList(pools);
		}

	}

	record PoolList(List<StreamPool> pools) {

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		final List<String> calls = new ArrayList<>();

		@Bean
		@Order(2)
		OffloadListener secondListener() {
			return new RecordingListener("second", this.calls);
		}

		@Bean
		@Order(1)
		OffloadListener firstListener() {
			return new RecordingListener("first", this.calls);
		}

	}

	record RecordingListener(String name, List<String> calls) implements OffloadListener {

		@Override
		public void sessionOpened(OffloadSession session) {
			this.calls.add(this.name + " opened " + session.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBackendConfiguration {

		@Bean
		Backend userBackend() {
			return HostBackend.builder().deviceCount(2).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistryConfiguration {

		@Bean
		DeviceRegistry userRegistry() {
			return DeviceRegistry.builder(HostBackend.builder().build()).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserStreamPoolConfiguration implements DisposableBean {

		private final DeviceRegistry ownRegistry = DeviceRegistry.builder(HostBackend.builder().build()).build();

		@Bean
		StreamPool myPool() {
			return this.ownRegistry.device(0).streamPool();
		}

		@Override
		public void destroy() {
			this.ownRegistry.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserLifecycleConfiguration {

		@Bean
		OffloadLifecycle userLifecycle() {
			return new OffloadLifecycle(List.of(), Duration.ZERO);
		}

	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
