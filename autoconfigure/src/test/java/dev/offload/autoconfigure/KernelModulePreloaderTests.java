package dev.offload.autoconfigure;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.backend.cuda.CudaBackendProvider;
import dev.offload.compile.KernelCache;
import dev.offload.compile.NvrtcUnavailableException;
import dev.offload.kernel.HostKernel;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/**
 * Tests for {@link KernelModulePreloader} and the kernel cache's configuration.
 */
@ExtendWith(OutputCaptureExtension.class)
class KernelModulePreloaderTests {

	private static final HostKernel NOTHING = (thread) -> {
	};

	private static final String SOURCE = "extern \"C\" __global__ void scale(int n, float a, float* x) { }";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
		.withPropertyValues("offload.backend=host", "offload.host.device-count=2");

	@Test
	void startupWhenModuleDefinitionBeanShouldLoadItOnEveryDeviceBeforeReady() {
		this.contextRunner.withUserConfiguration(ModuleConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			// A device keeps a module by name: a later definition of the same name gets
			// the one loaded at startup, whose kernel is 'preloaded'.
			ModuleDefinition later = ModuleDefinition.builder("preloaded-module")
				.hostKernel("later", List.of(ParamKind.INT32), NOTHING)
				.build();
			assertThat(registry.devices()).allSatisfy(
					(device) -> assertThat(device.loadModule(later).kernelNames()).containsExactly("preloaded"));
		});
	}

	@Test
	void startupWhenSourceOnlyModuleOnHostBackendShouldNotFail() {
		this.contextRunner.withUserConfiguration(CudaOnlyModuleConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void startupWhenSourceModuleWithHostKernelShouldLoadItWithTheSourcesParameters() {
		this.contextRunner.withUserConfiguration(SourceModuleConfiguration.class).run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(registry.device(0).loadModule(SourceModuleConfiguration.MODULE).kernel("scale").parameters())
				.containsExactly(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER);
		});
	}

	@Test
	void startupWhenSourceWithASyntaxErrorOnHostBackendShouldWarnOnceThatItWasNotCompiled(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(BrokenSourceModuleConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.toString().lines().filter((line) -> line.contains("Module 'broken'")))
				.singleElement(STRING)
				.contains(" WARN ")
				.contains("Module 'broken' has CUDA C source (broken.cu) that was not compiled: "
						+ "the host backend does not compile CUDA C")
				.contains("dev.offload.compile.KernelPrecompiler");
		});
	}

	@Test
	void kernelCacheWhenPropertiesSetShouldUseThem() {
		this.contextRunner
			.withPropertyValues("offload.kernels.cache-dir=/var/cache/offload-kernels",
					"offload.kernels.nvrtc-library=/opt/cuda/lib64/libnvrtc.so.13")
			.run((context) -> assertThat(context.getBean(KernelCache.class).directory())
				.isEqualTo(Path.of("/var/cache/offload-kernels")));
	}

	@Test
	void cudaBackendWhenKernelsConfiguredShouldCompileThroughTheKernelCacheBean(@TempDir Path cacheDir) {
		// Not on the host backend: the CUDA provider is made (and probed) as on a GPU.
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withPropertyValues("offload.kernels.cache-dir=" + cacheDir, "offload.kernels.nvrtc-library=/nonexistent")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				KernelCache configured = context.getBean(KernelCache.class);
				// The factory the auto-configuration selects the backend with, and
				// creates it
				// with, over the same beans.
				BackendFactory factory = OffloadBeanMethods.backendFactory(context.getBean(OffloadProperties.class),
						context, context.getEnvironment(), context.getBeanProvider(KernelCache.class));
				assertThat(factory.cuda()).isInstanceOf(CudaBackendProvider.class);
				KernelCache compiling = ((CudaBackendProvider) factory.cuda()).kernelCache();
				assertThat(compiling).as("the cache the kernel meters read").isSameAs(configured);
				assertThat(compiling.directory()).isEqualTo(cacheDir);
				// What CudaDevice asks for a module from source: the configured NVRTC,
				// never the one the loader's path finds.
				assertThatExceptionOfType(NvrtcUnavailableException.class)
					.isThrownBy(() -> compiling.image(CudaOnlyModuleConfiguration.MODULE, 90, 13000))
					.withMessageContaining("/nonexistent");
			});
	}

	@Test
	void kernelCacheWhenUnsetShouldUseTheUsersCacheDirectory() {
		this.contextRunner.run((context) -> assertThat(context.getBean(KernelCache.class).directory())
			.isEqualTo(KernelCache.defaultDirectory())
			.endsWithRaw(Path.of(".cache", "offload", "kernels")));
	}

	@Configuration(proxyBeanMethods = false)
	static class ModuleConfiguration {

		@Bean
		ModuleDefinition preloadedModule() {
			return ModuleDefinition.builder("preloaded-module")
				.hostKernel("preloaded", List.of(ParamKind.INT32), NOTHING)
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CudaOnlyModuleConfiguration {

		static final ModuleDefinition MODULE = ModuleDefinition.builder("cuda-only")
			.cudaSource("scale.cu", SOURCE)
			.build();

		@Bean
		ModuleDefinition cudaOnlyModule() {
			return MODULE;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenSourceModuleConfiguration {

		@Bean
		ModuleDefinition brokenModule() {
			// The statement lacks its semicolon: NVRTC would refuse it.
			return ModuleDefinition.builder("broken")
				.cudaSource("broken.cu", "extern \"C\" __global__ void broken(int n, float* x) { x[0] = n }")
				.hostKernel("broken", NOTHING)
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SourceModuleConfiguration {

		static final ModuleDefinition MODULE = ModuleDefinition.builder("scale")
			.cudaSource("scale.cu", SOURCE)
			.hostKernel("scale", NOTHING)
			.build();

		@Bean
		ModuleDefinition scaleModule() {
			return MODULE;
		}

	}

}
