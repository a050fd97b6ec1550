package dev.offload.compile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import dev.offload.kernel.CudaSource;
import dev.offload.kernel.ModuleDefinition;

/**
 * Compiles modules from CUDA source at build time for a list of architectures and writes
 * the cubins where {@link KernelCache} looks first
 * ({@value KernelCache#PACKAGED_LOCATION} under the output directory), so that a
 * production process compiles nothing. Compiles with NVRTC where it loads, else with
 * {@code nvcc} where it runs, else skips with a message: the run-time compile remains.
 * <p>
 * Usage: {@code KernelPrecompiler <output directory> <architectures, e.g. 80,90,100>
 * <class>...}: every static {@link ModuleDefinition} field with CUDA source of each class
 * is compiled. The system property {@code offload.kernels.nvrtc-library} names NVRTC's
 * library as the application's setting does.
 */
public final class KernelPrecompiler {

	private final Path output;

	private final List<Integer> architectures;

	private final KernelCompiler compiler;

	KernelPrecompiler(Path output, List<Integer> architectures, KernelCompiler compiler) {
		this.output = output;
		this.architectures = architectures;
		this.compiler = compiler;
	}

	/**
	 * Runs the precompiler.
	 * @param args the output directory, the architectures and the classes
	 * @throws Exception if a class cannot be read, a source does not compile or an image
	 * cannot be written
	 */
	public static void main(String[] args) throws Exception {
		if (args.length < 3) {
			System.err.println("Usage: KernelPrecompiler <output directory> <architectures, e.g. 80,90> <class>...");
			System.exit(2);
		}
		List<Integer> architectures = Arrays.stream(args[1].split(","))
			.map(String::strip)
			.map(Integer::valueOf)
			.toList();
		KernelCompiler compiler = compiler(System.getProperty("offload.kernels.nvrtc-library"));
		if (compiler == null) {
			return;
		}
		KernelPrecompiler precompiler = new KernelPrecompiler(Path.of(args[0]), architectures, compiler);
		int written = 0;
		for (String className : Arrays.asList(args).subList(2, args.length)) {
			for (ModuleDefinition module : modules(Class.forName(className))) {
				written += precompiler.precompile(module).size();
			}
		}
		System.out.println("KernelPrecompiler: wrote " + written + " cubin(s) with " + compiler.version() + " under "
				+ Path.of(args[0]).resolve(KernelCache.PACKAGED_LOCATION));
	}

	private static @Nullable KernelCompiler compiler(String nvrtcLibrary) {
		try {
			return NvrtcLoader.load("(build)", nvrtcLibrary);
		}
		catch (NvrtcUnavailableException ex) {
			if (Nvcc.isPresent()) {
				return new Nvcc();
			}
			System.out.println("KernelPrecompiler: skipped, neither NVRTC nor nvcc is here (tried "
					+ String.join(", ", ex.getAttempts().keySet())
					+ " and nvcc on the PATH); modules from CUDA source compile at run time");
			return null;
		}
	}

	/**
	 * Compiles one module for every architecture and writes the cubins.
	 * @param module a module with CUDA source
	 * @return the files written
	 */
	List<Path> precompile(ModuleDefinition module) {
		String sourceKey = KernelCache.sourceKey(module.cudaSource());
		List<Path> written = new ArrayList<>();
		for (int architecture : this.architectures) {
			KernelCompiler.CompiledImage image = this.compiler.compile(module.name(), module.cudaSource(),
					architecture);
			if (image.isPtx()) {
				System.out.println("KernelPrecompiler: " + this.compiler.version() + " does not know sm_" + architecture
						+ "; module '" + module.name() + "' compiles at run time there");
				continue;
			}
			Path file = this.output.resolve(KernelCache.packagedResource(sourceKey, architecture));
			try {
				Files.createDirectories(file.getParent());
				Files.write(file, image.image());
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot write " + file, ex);
			}
			written.add(file);
		}
		return written;
	}

	static List<ModuleDefinition> modules(Class<?> type) throws IllegalAccessException {
		List<ModuleDefinition> modules = new ArrayList<>();
		for (Field field : type.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) && ModuleDefinition.class.equals(field.getType())) {
				field.setAccessible(true);
				ModuleDefinition module = (ModuleDefinition) field.get(null);
				if (module != null && module.hasCudaSource()) {
					modules.add(module);
				}
			}
		}
		return modules;
	}

	/**
	 * {@link KernelCompiler} over the {@code nvcc} on the PATH, for build machines that
	 * have the CUDA toolkit's compiler but not NVRTC's library.
	 */
	static final class Nvcc implements KernelCompiler {

		static boolean isPresent() {
			try {
				Process process = new ProcessBuilder("nvcc", "--version").redirectErrorStream(true).start();
				process.getInputStream().readAllBytes();
				return process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0;
			}
			catch (IOException ex) {
				return false;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		@Override
		public String version() {
			return "nvcc";
		}

		@Override
		public CompiledImage compile(String module, CudaSource source, int architecture) {
			Path directory = null;
			try {
				directory = Files.createTempDirectory("offload-nvcc");
				Files.writeString(directory.resolve(source.name()), source.text(), StandardCharsets.UTF_8);
				for (Map.Entry<String, String> include : source.includes().entrySet()) {
					Path header = directory.resolve(include.getKey());
					Files.createDirectories(header.getParent());
					Files.writeString(header, include.getValue(), StandardCharsets.UTF_8);
				}
				Path cubin = directory.resolve("out.cubin");
				List<String> command = new ArrayList<>(List.of("nvcc", "-cubin", "-arch=sm_" + architecture, "-I",
						directory.toString(), "-o", cubin.toString()));
				command.addAll(source.options());
				command.add(source.name());
				Process process = new ProcessBuilder(command).directory(directory.toFile())
					.redirectErrorStream(true)
					.start();
				String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
				if (process.waitFor() != 0) {
					throw new KernelCompilationException(module, source.name(), "sm_" + architecture, log);
				}
				return new CompiledImage(Files.readAllBytes(cubin), "sm_" + architecture);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("nvcc could not compile module '" + module + "'", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while nvcc compiled module '" + module + "'", ex);
			}
			finally {
				delete(directory);
			}
		}

		private static void delete(@Nullable Path directory) {
			if (directory == null) {
				return;
			}
			try (Stream<Path> files = Files.walk(directory)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
			catch (IOException ex) {
				// A temporary directory left behind is harmless.
			}
		}

	}

}
