package dev.offload.compile;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.kernel.CudaSource;
import dev.offload.kernel.ModuleDefinition;

/**
 * Gives the CUDA backend the image of a module from CUDA C source, compiling it only when
 * no earlier result fits. Looks, in order, in the images packaged at build time
 * ({@value #PACKAGED_LOCATION}{@code <source key>/sm_XY.cubin} on the classpath, made by
 * {@link KernelPrecompiler}), in memory, in the cache directory, and only then compiles
 * with NVRTC and stores the result in both.
 * <p>
 * A result is found by a SHA-256 of the source, its includes, its options, the device's
 * architecture, the compiler's version and the driver's version: changing any of them
 * compiles once, nothing else does. Concurrent loads of one key compile once. The version
 * of the compiler that last compiled is remembered (in the directory, as
 * {@value #COMPILER_VERSION_FILE}), so that a warm cache finds its images without loading
 * NVRTC at all; an NVRTC upgraded under the same driver is used from the first image that
 * is not cached on (the images cached before it still run on that driver). A cache
 * directory that cannot be written is logged once and used no further; a file that cannot
 * be read is a miss. Anyone who can write to the directory can change the code the GPU
 * runs: give it the permissions of the application's own files.
 */
public final class KernelCache {

	/**
	 * Where images packaged at build time are looked up on the classpath.
	 */
	public static final String PACKAGED_LOCATION = "META-INF/offload/kernels/";

	/**
	 * The file in the cache directory that names the version of the compiler that last
	 * compiled.
	 */
	static final String COMPILER_VERSION_FILE = "compiler.version";

	private static final Logger logger = LoggerFactory.getLogger(KernelCache.class);

	private final Path directory;

	private volatile Function<String, KernelCompiler> compilerLoader;

	private final @Nullable String nvrtcLibrary;

	/**
	 * Whether the key of a warm lookup may use the remembered compiler version (NVRTC's
	 * caches), rather than that of a compiler loaded first (the tests' fakes).
	 */
	private final boolean rememberCompilerVersion;

	private volatile @Nullable String rememberedVersion;

	private final ClassLoader classLoader;

	private final Map<String, KernelCompiler.CompiledImage> memory = new ConcurrentHashMap<>();

	private final AtomicBoolean directoryUnusable = new AtomicBoolean();

	private final LongAdder hits = new LongAdder();

	private final LongAdder misses = new LongAdder();

	private final LongAdder compilations = new LongAdder();

	private final LongAdder compileNanos = new LongAdder();

	private volatile @Nullable KernelCompiler compiler;

	KernelCache(Path directory, Function<String, KernelCompiler> compilerLoader, ClassLoader classLoader) {
		this(directory, compilerLoader, classLoader, null, false);
	}

	KernelCache(Path directory, Function<String, KernelCompiler> compilerLoader, ClassLoader classLoader,
			@Nullable String nvrtcLibrary, boolean rememberCompilerVersion) {
		this.directory = directory;
		this.compilerLoader = compilerLoader;
		this.classLoader = classLoader;
		this.nvrtcLibrary = nvrtcLibrary;
		this.rememberCompilerVersion = rememberCompilerVersion;
	}

	/**
	 * Creates a cache that compiles with NVRTC.
	 * @param directory where compiled images persist across restarts, or {@code null} to
	 * keep them in memory only
	 * @param nvrtcLibrary NVRTC's library path, or {@code null} to search the sonames
	 * {@code libnvrtc.so.13}, {@code .12} and {@code libnvrtc.so}
	 * @return the cache
	 */
	public static KernelCache create(Path directory, @Nullable String nvrtcLibrary) {
		return new KernelCache(directory, (module) -> NvrtcLoader.load(module, nvrtcLibrary),
				KernelCache.class.getClassLoader(), nvrtcLibrary, true);
	}

	/**
	 * Makes this cache compile through another binding to NVRTC: a backend that brings
	 * its own (the FFM backend on Java 22+, which needs no JNA) sets it when it starts,
	 * before it loads a module. The loader receives the module that needs compiling and
	 * the configured NVRTC library ({@code null}: search by soname), and throws
	 * {@link NvrtcUnavailableException} if NVRTC cannot be loaded. Nothing is loaded
	 * until an image must be compiled.
	 * @param loader loads the compiler
	 */
	public synchronized void useCompiler(BiFunction<String, @Nullable String, KernelCompiler> loader) {
		String library = this.nvrtcLibrary;
		this.compilerLoader = (module) -> loader.apply(module, library);
		this.compiler = null;
	}

	/**
	 * Returns the NVRTC library this cache was configured with.
	 * @return the path, or {@code null} when NVRTC is searched by soname
	 */
	public @Nullable String nvrtcLibrary() {
		return this.nvrtcLibrary;
	}

	/**
	 * Returns the default cache directory: {@code ~/.cache/offload/kernels}, private to
	 * the user the application runs as.
	 * @return the directory
	 */
	public static Path defaultDirectory() {
		return Path.of(System.getProperty("user.home"), ".cache", "offload", "kernels");
	}

	/**
	 * Returns the counts since this cache was created.
	 * @return a snapshot
	 */
	public KernelCacheStatistics statistics() {
		return new KernelCacheStatistics(this.hits.sum(), this.misses.sum(), this.compilations.sum(),
				this.compileNanos.sum());
	}

	/**
	 * Returns the cache directory.
	 * @return the directory, or {@code null} when images are kept in memory only
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Returns a module's image for a device, as the CUDA backend loads it.
	 * @param definition a module with CUDA source
	 * @param architecture the device's compute capability as {@code 10 * major + minor}
	 * @param driverVersion the driver's CUDA version ({@code 1000 * major + 10 * minor})
	 * @return the bytes of a cubin or of PTX text
	 * @throws NvrtcUnavailableException if it must compile and NVRTC cannot be loaded
	 * @throws KernelCompilationException if the source does not compile
	 */
	public byte[] image(ModuleDefinition definition, int architecture, int driverVersion) {
		return compiledImage(definition, architecture, driverVersion).image();
	}

	KernelCompiler.CompiledImage compiledImage(ModuleDefinition definition, int architecture, int driverVersion) {
		CudaSource source = definition.cudaSource();
		String sourceKey = sourceKey(source);
		KernelCompiler.CompiledImage packaged = packaged(sourceKey, architecture);
		if (packaged != null) {
			this.hits.increment();
			return packaged;
		}
		KernelCompiler.CompiledImage warm = warm(sourceKey, architecture, driverVersion);
		if (warm != null) {
			this.hits.increment();
			return warm;
		}
		KernelCompiler loaded = compiler(definition.name());
		String key = sha256(sourceKey, Integer.toString(architecture), loaded.version(),
				Integer.toString(driverVersion));
		boolean[] compiled = new boolean[1];
		KernelCompiler.CompiledImage image = this.memory.computeIfAbsent(key, (k) -> {
			KernelCompiler.CompiledImage stored = read(k, architecture);
			if (stored != null) {
				return stored;
			}
			compiled[0] = true;
			return compile(loaded, definition, architecture, k);
		});
		(compiled[0] ? this.misses : this.hits).increment();
		rememberVersion(loaded.version());
		return image;
	}

	/**
	 * Looks an image up under the version of the compiler already loaded or, before one
	 * is, the version remembered from the last compilation, without loading a compiler.
	 * @return the image, or {@code null} to load the compiler and look again
	 */
	private KernelCompiler.@Nullable CompiledImage warm(String sourceKey, int architecture, int driverVersion) {
		KernelCompiler loaded = this.compiler;
		String version = (loaded != null) ? loaded.version()
				: (this.rememberCompilerVersion ? rememberedVersion() : null);
		if (version == null) {
			return null;
		}
		String key = sha256(sourceKey, Integer.toString(architecture), version, Integer.toString(driverVersion));
		KernelCompiler.CompiledImage image = this.memory.get(key);
		if (image == null) {
			image = read(key, architecture);
			if (image != null) {
				this.memory.putIfAbsent(key, image);
			}
		}
		return image;
	}

	private @Nullable String rememberedVersion() {
		String version = this.rememberedVersion;
		if (version == null && this.directory != null) {
			Path file = this.directory.resolve(COMPILER_VERSION_FILE);
			try {
				if (Files.isRegularFile(file)) {
					version = Files.readString(file, StandardCharsets.UTF_8).strip();
					this.rememberedVersion = version.isEmpty() ? null : version;
				}
			}
			catch (IOException ex) {
				logger.debug("Cannot read {}: {}", file, ex.toString());
			}
		}
		return this.rememberedVersion;
	}

	private void rememberVersion(String version) {
		if (!this.rememberCompilerVersion || version.equals(this.rememberedVersion)) {
			return;
		}
		this.rememberedVersion = version;
		if (this.directory == null || this.directoryUnusable.get()) {
			return;
		}
		try {
			Files.createDirectories(this.directory);
			Path temporary = Files.createTempFile(this.directory, COMPILER_VERSION_FILE, ".tmp");
			Files.writeString(temporary, version, StandardCharsets.UTF_8);
			Files.move(temporary, this.directory.resolve(COMPILER_VERSION_FILE), StandardCopyOption.ATOMIC_MOVE,
					StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException | UnsupportedOperationException ex) {
			logger.debug("Cannot remember the compiler version in {}: {}", this.directory, ex.toString());
		}
	}

	private KernelCompiler.CompiledImage compile(KernelCompiler loaded, ModuleDefinition definition, int architecture,
			String key) {
		long start = System.nanoTime();
		KernelCompiler.CompiledImage image;
		try {
			image = loaded.compile(definition.name(), definition.cudaSource(), architecture);
		}
		catch (RuntimeException ex) {
			this.misses.increment();
			throw ex;
		}
		long nanos = System.nanoTime() - start;
		this.compilations.increment();
		this.compileNanos.add(nanos);
		logger.info("Compiled CUDA source {} of module '{}' for {} with {} in {} ms", definition.cudaSource().name(),
				definition.name(), image.target(), loaded.version(), nanos / 1_000_000);
		write(key, image);
		return image;
	}

	private KernelCompiler compiler(String module) {
		KernelCompiler current = this.compiler;
		if (current == null) {
			synchronized (this) {
				current = this.compiler;
				if (current == null) {
					current = this.compilerLoader.apply(module);
					this.compiler = current;
				}
			}
		}
		return current;
	}

	private KernelCompiler.@Nullable CompiledImage packaged(String sourceKey, int architecture) {
		String resource = packagedResource(sourceKey, architecture);
		try (InputStream in = this.classLoader.getResourceAsStream(resource)) {
			return (in != null) ? new KernelCompiler.CompiledImage(in.readAllBytes(), "sm_" + architecture) : null;
		}
		catch (IOException ex) {
			logger.warn("Cannot read the packaged kernel image classpath:{}: {}", resource, ex.toString());
			return null;
		}
	}

	/**
	 * Returns where a packaged cubin of a source lives on the classpath.
	 * @param sourceKey the source's key, from {@link #sourceKey(CudaSource)}
	 * @param architecture the architecture as {@code 10 * major + minor}
	 * @return the resource path
	 */
	static @Nullable String packagedResource(String sourceKey, int architecture) {
		return PACKAGED_LOCATION + sourceKey + "/sm_" + architecture + ".cubin";
	}

	private KernelCompiler.@Nullable CompiledImage read(String key, int architecture) {
		if (this.directory == null) {
			return null;
		}
		for (String target : new String[] { "cubin", "ptx" }) {
			Path file = this.directory.resolve(key + "." + target);
			try {
				if (Files.isRegularFile(file)) {
					byte[] image = Files.readAllBytes(file);
					return new KernelCompiler.CompiledImage(image,
							(target.equals("ptx") ? "compute_" : "sm_") + architecture);
				}
			}
			catch (IOException ex) {
				logger.warn("Cannot read the cached kernel image {}; compiling: {}", file, ex.toString());
			}
		}
		return null;
	}

	private void write(String key, KernelCompiler.CompiledImage image) {
		if (this.directory == null || this.directoryUnusable.get()) {
			return;
		}
		try {
			Files.createDirectories(this.directory);
			Path temporary = Files.createTempFile(this.directory, key, ".tmp");
			Files.write(temporary, image.image());
			Files.move(temporary, this.directory.resolve(key + "." + image.extension()), StandardCopyOption.ATOMIC_MOVE,
					StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException | UnsupportedOperationException ex) {
			if (this.directoryUnusable.compareAndSet(false, true)) {
				logger.warn(
						"The kernel cache directory {} cannot be written; compiled kernels are kept in memory "
								+ "only (set offload.kernels.cache-dir to a writable directory): {}",
						this.directory, ex.toString());
			}
		}
	}

	/**
	 * Returns the part of a cache key a build can know: a SHA-256 of the source's name,
	 * text, includes and options.
	 * @param source the source
	 * @return 64 hex digits
	 */
	static String sourceKey(CudaSource source) {
		String[] parts = new String[2 + 2 * source.includes().size() + 1 + source.options().size()];
		int i = 0;
		parts[i++] = source.name();
		parts[i++] = source.text();
		for (Map.Entry<String, String> include : source.includes().entrySet()) {
			parts[i++] = include.getKey();
			parts[i++] = include.getValue();
		}
		parts[i++] = "options";
		for (String option : source.options()) {
			parts[i++] = option;
		}
		return sha256(parts);
	}

	private static String sha256(String... parts) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			for (String part : parts) {
				byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
				// Length-prefixed, so that no two lists of parts hash alike.
				digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
				digest.update((byte) ':');
				digest.update(bytes);
			}
			return HexFormat.of().formatHex(digest.digest());
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this Java runtime", ex);
		}
	}

}
