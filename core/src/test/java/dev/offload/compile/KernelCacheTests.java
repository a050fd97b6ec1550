package dev.offload.compile;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.kernel.CudaSource;
import dev.offload.kernel.ModuleDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link KernelCache}: each part of the key recompiles exactly once when it
 * changes, nothing else does, across processes (a fresh cache over the same directory).
 */
class KernelCacheTests {

	private static final String SAXPY = "extern \"C\" __global__ void saxpy(int n, float a, const float* x, float* y) { }";

	private static final int H200 = 90;

	private static final int DRIVER = 13000;

	@TempDir
	Path directory;

	private final CountingCompiler compiler = new CountingCompiler("nvrtc 13.0");

	@Test
	void imageWhenSameKeyTwiceShouldCompileOnceAndHitOnce() {
		KernelCache cache = cache(this.compiler);
		ModuleDefinition module = module((builder) -> builder);

		KernelCompiler.CompiledImage first = cache.compiledImage(module, H200, DRIVER);
		KernelCompiler.CompiledImage second = cache.compiledImage(module, H200, DRIVER);

		assertThat(this.compiler.compilations).hasValue(1);
		assertThat(second.image()).isEqualTo(first.image());
		assertThat(cache.statistics()).satisfies((statistics) -> {
			assertThat(statistics.hits()).isEqualTo(1);
			assertThat(statistics.misses()).isEqualTo(1);
			assertThat(statistics.compilations()).isEqualTo(1);
		});
	}

	@Test
	void imageWhenFreshCacheOverSameDirectoryShouldNotCompile() {
		ModuleDefinition module = module((builder) -> builder);
		cache(this.compiler).compiledImage(module, H200, DRIVER);

		KernelCache restarted = cache(this.compiler);
		KernelCompiler.CompiledImage image = restarted.compiledImage(module, H200, DRIVER);

		assertThat(this.compiler.compilations).hasValue(1);
		assertThat(new String(image.image(), StandardCharsets.UTF_8)).isEqualTo("image 1 for sm_90");
		assertThat(image.target()).isEqualTo("sm_90");
		assertThat(restarted.statistics().hits()).isEqualTo(1);
		assertThat(restarted.statistics().misses()).isZero();
	}

	@Test
	void imageWhenSourceChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder.cudaSource("saxpy.cu", SAXPY + "\n// changed")), H200, DRIVER,
				this.compiler);
	}

	@Test
	void imageWhenSourceNameChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder.cudaSource("axpy.cu", SAXPY)), H200, DRIVER, this.compiler);
	}

	@Test
	void imageWhenIncludeChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder.include("common.cuh", "#define TWO 2")), H200, DRIVER,
				this.compiler);
	}

	@Test
	void imageWhenIncludeAddedShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder.include("other.cuh", "#define ONE 1")), H200, DRIVER,
				this.compiler);
	}

	@Test
	void imageWhenOptionsChangeShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder.compileOptions("--use_fast_math")), H200, DRIVER,
				this.compiler);
	}

	@Test
	void imageWhenWarmCacheOverSameDirectoryShouldNotLoadTheCompiler() {
		ModuleDefinition module = module((builder) -> builder);
		AtomicInteger loads = new AtomicInteger();
		Function<String, KernelCompiler> loader = (name) -> {
			loads.incrementAndGet();
			return this.compiler;
		};
		new KernelCache(this.directory, loader, getClass().getClassLoader(), null, true).image(module, H200, DRIVER);

		KernelCache restarted = new KernelCache(this.directory, loader, getClass().getClassLoader(), null, true);
		KernelCompiler.CompiledImage image = restarted.compiledImage(module, H200, DRIVER);

		assertThat(loads).as("compiler loads").hasValue(1);
		assertThat(new String(image.image(), StandardCharsets.UTF_8)).isEqualTo("image 1 for sm_90");
		assertThat(restarted.statistics().hits()).isEqualTo(1);
	}

	@Test
	void imageWhenWarmCacheMissesShouldLoadTheCompilerAndCompileOnce() {
		AtomicInteger loads = new AtomicInteger();
		Function<String, KernelCompiler> loader = (name) -> {
			loads.incrementAndGet();
			return this.compiler;
		};
		new KernelCache(this.directory, loader, getClass().getClassLoader(), null, true)
			.image(module((builder) -> builder), H200, DRIVER);

		KernelCache restarted = new KernelCache(this.directory, loader, getClass().getClassLoader(), null, true);
		restarted.image(module((builder) -> builder.compileOptions("-DTWO")), H200, DRIVER);

		assertThat(loads).hasValue(2);
		assertThat(this.compiler.compilations).hasValue(2);
	}

	@Test
	void useCompilerShouldCompileThroughTheGivenBindingWithTheConfiguredLibrary() {
		KernelCache cache = new KernelCache(this.directory, (name) -> {
			throw new AssertionError("the default binding must not load");
		}, getClass().getClassLoader(), "/opt/cuda/libnvrtc.so.13", true);
		List<String> libraries = new java.util.ArrayList<>();
		cache.useCompiler((name, library) -> {
			libraries.add(library);
			return this.compiler;
		});

		cache.image(module((builder) -> builder), H200, DRIVER);

		assertThat(libraries).containsExactly("/opt/cuda/libnvrtc.so.13");
		assertThat(this.compiler.compilations).hasValue(1);
	}

	@Test
	void imageWhenArchitectureChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder), 100, DRIVER, this.compiler);
	}

	@Test
	void imageWhenDriverVersionChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder), H200, 13010, this.compiler);
	}

	@Test
	void imageWhenCompilerVersionChangesShouldRecompileExactlyOnce() {
		assertRecompilesOnce(module((builder) -> builder), H200, DRIVER, new CountingCompiler("nvrtc 13.1"));
	}

	@Test
	void imageWhenOnlyModuleNameOrHostKernelsChangeShouldNotRecompile() {
		cache(this.compiler).compiledImage(module((builder) -> builder), H200, DRIVER);
		ModuleDefinition renamed = ModuleDefinition.builder("renamed")
			.cudaSource("saxpy.cu", SAXPY)
			.include("common.cuh", "#define ONE 1")
			.hostKernel("saxpy", (thread) -> {
			})
			.build();

		cache(this.compiler).compiledImage(renamed, H200, DRIVER);

		assertThat(this.compiler.compilations).hasValue(1);
	}

	@Test
	void imageWhenCompileFailsShouldCountAMissAndCacheNothing() {
		KernelCache cache = cache(this.compiler);
		ModuleDefinition broken = module((builder) -> builder.cudaSource("broken.cu",
				"extern \"C\" __global__ " + "void broken(int n) { undefined(); }"));

		for (int attempt = 0; attempt < 2; attempt++) {
			assertThatExceptionOfType(KernelCompilationException.class)
				.isThrownBy(() -> cache.compiledImage(broken, H200, DRIVER))
				.withMessageContaining("broken.cu:1: error: identifier \"undefined\" is undefined");
		}
		assertThat(cache.statistics().misses()).isEqualTo(2);
		assertThat(cache.statistics().compilations()).isZero();
		assertThat(this.directory).isEmptyDirectory();
	}

	@Test
	void imageWhenConcurrentLoadsOfOneKeyShouldCompileOnce() throws Exception {
		KernelCache cache = cache(this.compiler);
		ModuleDefinition module = module((builder) -> builder);
		int threads = 8;
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<CompletableFuture<KernelCompiler.CompiledImage>> loads = java.util.stream.IntStream.range(0, threads)
				.mapToObj((i) -> CompletableFuture.supplyAsync(() -> {
					await(start);
					return cache.compiledImage(module, H200, DRIVER);
				}, executor))
				.toList();
			start.countDown();
			CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).get();
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.compiler.compilations).hasValue(1);
		assertThat(cache.statistics().hits() + cache.statistics().misses()).isEqualTo(threads);
	}

	@Test
	void imageWhenDirectoryCannotBeWrittenShouldKeepImagesInMemory() throws IOException {
		Path file = Files.writeString(this.directory.resolve("a-file"), "not a directory");
		KernelCache cache = new KernelCache(file.resolve("kernels"), (module) -> this.compiler,
				getClass().getClassLoader());
		ModuleDefinition module = module((builder) -> builder);

		cache.compiledImage(module, H200, DRIVER);
		cache.compiledImage(module, H200, DRIVER);

		assertThat(this.compiler.compilations).hasValue(1);
	}

	@Test
	void imageWhenPackagedCubinForArchitectureShouldNeitherCompileNorLoadCompiler() throws IOException {
		ModuleDefinition module = module((builder) -> builder);
		Path packaged = this.directory.resolve("classes");
		new KernelPrecompiler(packaged, List.of(80, H200), this.compiler).precompile(module);
		AtomicInteger compilerLoads = new AtomicInteger();
		try (URLClassLoader classLoader = new URLClassLoader(new URL[] { packaged.toUri().toURL() }, null)) {
			KernelCache cache = new KernelCache(null, (name) -> {
				compilerLoads.incrementAndGet();
				return this.compiler;
			}, classLoader);

			KernelCompiler.CompiledImage image = cache.compiledImage(module, H200, DRIVER);
			cache.image(module, 100, DRIVER);

			assertThat(new String(image.image(), StandardCharsets.UTF_8)).isEqualTo("image 2 for sm_90");
			assertThat(cache.statistics().hits()).isEqualTo(1);
		}
		// Two at build time, one at run time for the architecture that was not packaged.
		assertThat(this.compiler.compilations).hasValue(3);
		assertThat(compilerLoads).hasValue(1);
	}

	private void assertRecompilesOnce(ModuleDefinition changed, int architecture, int driver,
			CountingCompiler changedCompiler) {
		ModuleDefinition original = module((builder) -> builder);
		cache(this.compiler).compiledImage(original, H200, DRIVER);
		int before = compilations(changedCompiler);

		cache(changedCompiler).image(changed, architecture, driver);
		cache(changedCompiler).image(changed, architecture, driver);
		KernelCache again = cache(changedCompiler);
		again.image(changed, architecture, driver);

		assertThat(compilations(changedCompiler) - before).as("compilations after the change").isEqualTo(1);
		assertThat(again.statistics().hits()).isEqualTo(1);
	}

	private int compilations(CountingCompiler changedCompiler) {
		return this.compiler.compilations.get()
				+ ((changedCompiler != this.compiler) ? changedCompiler.compilations.get() : 0);
	}

	private KernelCache cache(CountingCompiler compiler) {
		return new KernelCache(this.directory, (module) -> compiler, getClass().getClassLoader());
	}

	private static ModuleDefinition module(UnaryOperator<ModuleDefinition.Builder> change) {
		ModuleDefinition.Builder builder = ModuleDefinition.builder("saxpy")
			.cudaSource("saxpy.cu", SAXPY)
			.include("common.cuh", "#define ONE 1");
		return change.apply(builder).build();
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Compiles to a text naming the compilation's number; fails on a call to
	 * {@code undefined()} as NVRTC would.
	 */
	static final class CountingCompiler implements KernelCompiler {

		final AtomicInteger compilations = new AtomicInteger();

		private final String version;

		CountingCompiler(String version) {
			this.version = version;
		}

		@Override
		public String version() {
			return this.version;
		}

		@Override
		public CompiledImage compile(String module, CudaSource source, int architecture) {
			if (source.text().contains("undefined()")) {
				throw new KernelCompilationException(module, source.name(), "sm_" + architecture,
						source.name() + "(1): error: identifier \"undefined\" is undefined\n\n"
								+ "1 error detected in the compilation of \"" + source.name() + "\".\n");
			}
			int number = this.compilations.incrementAndGet();
			return new CompiledImage(("image " + number + " for sm_" + architecture).getBytes(StandardCharsets.UTF_8),
					"sm_" + architecture);
		}

	}

}
