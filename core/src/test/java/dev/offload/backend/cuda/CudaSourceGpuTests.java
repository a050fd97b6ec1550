package dev.offload.backend.cuda;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.compile.KernelCache;
import dev.offload.compile.KernelCompilationException;
import dev.offload.compile.NvrtcAvailableCondition;
import dev.offload.compile.NvrtcTests;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Modules from CUDA C source on a real device: compiled by NVRTC (through JNA, e.g.
 * {@code libnvrtc.so.13}) for the device's own architecture, run, cached on disk, and a
 * module that does not compile.
 */
@GpuTests
@ExtendWith(NvrtcAvailableCondition.class)
class CudaSourceGpuTests {

	private static final int MODULES = 8;

	@TempDir
	Path cacheDirectory;

	@Test
	void loadModuleWhenSourceShouldCompileForTheDeviceAndRunTheKernel() {
		KernelCache cache = cache();
		try (DeviceRegistry registry = registry(cache)) {
			Device device = registry.device(0);
			ModuleDefinition module = ModuleDefinition.builder("saxpy-source")
				.cudaSource("saxpy.cu", NvrtcTests.INCLUDING)
				.includeResource("axpy.cuh", "kernels/axpy.cuh")
				.build();

			Kernel saxpy = device.loadModule(module).kernel("saxpy");

			assertThat(saxpy.parameters()).containsExactly(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER,
					ParamKind.POINTER);
			assertThat(run(device, saxpy)).containsExactly(12f, 24f, 36f, 48f);
			assertThat(cache.statistics().compilations()).isEqualTo(1);
			System.out.println("Compiled saxpy.cu for compute capability " + device.info().computeCapability() + " in "
					+ cache.statistics().compileTimeNanos() / 1_000 + " µs");
		}
	}

	@Test
	void loadModuleWhenWarmCacheInANewProcessShouldLoadWithoutCompiling() {
		List<ModuleDefinition> modules = compiledModules("saxpy-", "variant");
		// A new cache over the same directory is what a restarted pod with the volume
		// has.
		KernelCache warm = cache();
		try (DeviceRegistry registry = registry(warm)) {
			Device device = registry.device(0);
			long[] nanos = loadTimes(device, modules);
			assertThat(warm.statistics().compilations()).isZero();
			assertThat(warm.statistics().hits()).isEqualTo(MODULES);
			assertThat(run(device, device.loadModule(modules.get(MODULES - 1)).kernel("saxpy"))).containsExactly(12f,
					24f, 36f, 48f);
			printLoadTimes("Warm-cache module load (target <= 0.2 ms): first %.3f ms (context and NVRTC's version)",
					nanos);
		}
	}

	@Test
	void loadModuleWhenWarmCacheAndNoNvrtcInstalledShouldLoadWithoutIt() {
		List<ModuleDefinition> modules = compiledModules("saxpy-nvrtc-free-", "without NVRTC");
		// A pod whose image has no NVRTC, with the cache volume a build or an earlier pod
		// filled: any attempt to load NVRTC fails.
		KernelCache warm = KernelCache.create(this.cacheDirectory, "/nonexistent/libnvrtc.so.13");
		try (DeviceRegistry registry = registry(warm)) {
			Device device = registry.device(0);
			long[] nanos = loadTimes(device, modules);
			assertThat(warm.statistics().compilations()).isZero();
			assertThat(run(device, device.loadModule(modules.get(0)).kernel("saxpy"))).containsExactly(12f, 24f, 36f,
					48f);
			printLoadTimes("Warm-cache module load without NVRTC (target <= 1 ms): first %.3f ms", nanos);
		}
	}

	/**
	 * {@value #MODULES} modules of distinct sources (a comment differs, so that each has
	 * its own cache file), compiled into this test's cache directory by a registry of
	 * their own.
	 */
	private List<ModuleDefinition> compiledModules(String namePrefix, String comment) {
		List<ModuleDefinition> modules = new ArrayList<>();
		for (int i = 0; i < MODULES; i++) {
			modules.add(ModuleDefinition.builder(namePrefix + i)
				.cudaSource("saxpy.cu", NvrtcTests.INCLUDING + "// " + comment + " " + i + "\n")
				.includeResource("axpy.cuh", "kernels/axpy.cuh")
				.build());
		}
		try (DeviceRegistry cold = registry(cache())) {
			modules.forEach(cold.device(0)::loadModule);
		}
		return modules;
	}

	private static long[] loadTimes(Device device, List<ModuleDefinition> modules) {
		long[] nanos = new long[modules.size()];
		for (int i = 0; i < nanos.length; i++) {
			long start = System.nanoTime();
			device.loadModule(modules.get(i));
			nanos[i] = System.nanoTime() - start;
		}
		return nanos;
	}

	/**
	 * Prints the first load's time ({@code first}'s format) and the others' median and
	 * max.
	 */
	private static void printLoadTimes(String first, long[] nanos) {
		long[] afterFirst = Arrays.copyOfRange(nanos, 1, nanos.length);
		Arrays.sort(afterFirst);
		System.out.printf(Locale.ROOT, first + ", then median %.3f ms, max %.3f ms over %d modules%n", nanos[0] / 1e6,
				afterFirst[afterFirst.length / 2] / 1e6, afterFirst[afterFirst.length - 1] / 1e6, afterFirst.length);
	}

	@Test
	void loadModuleWhenSourceDoesNotCompileShouldQuoteTheLogWithFileAndLine() {
		try (DeviceRegistry registry = registry(cache())) {
			ModuleDefinition broken = ModuleDefinition.builder("broken")
				.cudaSourceResource("kernels/broken.cu")
				.build();

			assertThatExceptionOfType(KernelCompilationException.class)
				.isThrownBy(() -> registry.device(0).loadModule(broken))
				.satisfies((ex) -> {
					System.out.println("Bad kernel: " + ex.getMessage() + "\n" + ex.getLog());
					assertThat(ex.getTarget()).startsWith("sm_");
					assertThat(ex.getDiagnostics()).first()
						.hasToString("broken.cu:6: error: identifier \"undefined_function\" is undefined");
				});
			assertThat(registry.device(0).isHealthy()).isTrue();
		}
	}

	private KernelCache cache() {
		return KernelCache.create(this.cacheDirectory, System.getProperty(NvrtcAvailableCondition.LIBRARY_PROPERTY));
	}

	private static DeviceRegistry registry(KernelCache cache) {
		DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create(cache)).deviceIds(List.of(0)).build();
		JCudaExceptionMode.configured().apply();
		return registry;
	}

	private static float[] run(Device device, Kernel saxpy) {
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer x = session.allocate(4 * Float.BYTES);
			DeviceBuffer y = session.allocate(4 * Float.BYTES);
			session.copy(session.hostBuffer(new float[] { 1, 2, 3, 4 }), x);
			session.copy(session.hostBuffer(new float[] { 10, 20, 30, 40 }), y);
			session.launch(saxpy, LaunchConfig.of(1, 32), 4, 2f, x, y);
			HostBuffer result = session.allocateHost(4 * Float.BYTES);
			session.copy(y, result);
			session.synchronize();
			return result.getFloats(0, new float[4]);
		}
	}

}
