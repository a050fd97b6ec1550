package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.offload.OffloadException;
import dev.offload.compile.KernelCompilationException;
import dev.offload.compile.KernelCompiler;
import dev.offload.compile.NvrtcUnavailableException;
import dev.offload.kernel.CudaSource;

/**
 * {@link KernelCompiler} over NVRTC called through this binding: the configured library,
 * or else {@code libnvrtc.so.13}, {@code libnvrtc.so.12} and {@code libnvrtc.so} by
 * soname; no JNA. The kernel cache loads it only when an image must be compiled, never
 * for an image it has.
 */
final class Nvrtc implements KernelCompiler {

	/** The sonames tried in order when no library is configured. */
	static final List<String> SONAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");

	private static final int NVRTC_SUCCESS = 0;

	private static final int NVRTC_ERROR_INVALID_OPTION = 5;

	private static final int NVRTC_ERROR_COMPILATION = 6;

	private static final int NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7;

	private static final ValueLayout.OfLong POINTER = ValueLayout.JAVA_LONG;

	private final MethodHandle nvrtcCreateProgram;

	private final MethodHandle nvrtcCompileProgram;

	private final MethodHandle nvrtcGetProgramLogSize;

	private final MethodHandle nvrtcGetProgramLog;

	private final MethodHandle nvrtcGetCUBINSize;

	private final MethodHandle nvrtcGetCUBIN;

	private final MethodHandle nvrtcGetPTXSize;

	private final MethodHandle nvrtcGetPTX;

	private final MethodHandle nvrtcDestroyProgram;

	private final MethodHandle nvrtcGetErrorString;

	private final String version;

	private final int[] architectures;

	private Nvrtc(SymbolLookup symbols) throws Throwable {
		NativeLibrary library = new NativeLibrary(symbols);
		MethodHandle nvrtcVersion = function(library, "nvrtcVersion", POINTER, POINTER);
		MethodHandle nvrtcGetNumSupportedArchs = function(library, "nvrtcGetNumSupportedArchs", POINTER);
		MethodHandle nvrtcGetSupportedArchs = function(library, "nvrtcGetSupportedArchs", POINTER);
		this.nvrtcCreateProgram = function(library, "nvrtcCreateProgram", POINTER, POINTER, POINTER,
				ValueLayout.JAVA_INT, POINTER, POINTER);
		this.nvrtcCompileProgram = function(library, "nvrtcCompileProgram", POINTER, ValueLayout.JAVA_INT, POINTER);
		this.nvrtcGetProgramLogSize = function(library, "nvrtcGetProgramLogSize", POINTER, POINTER);
		this.nvrtcGetProgramLog = function(library, "nvrtcGetProgramLog", POINTER, POINTER);
		this.nvrtcGetCUBINSize = function(library, "nvrtcGetCUBINSize", POINTER, POINTER);
		this.nvrtcGetCUBIN = function(library, "nvrtcGetCUBIN", POINTER, POINTER);
		this.nvrtcGetPTXSize = function(library, "nvrtcGetPTXSize", POINTER, POINTER);
		this.nvrtcGetPTX = function(library, "nvrtcGetPTX", POINTER, POINTER);
		this.nvrtcDestroyProgram = function(library, "nvrtcDestroyProgram", POINTER);
		this.nvrtcGetErrorString = library.function("nvrtcGetErrorString", NativeLibrary.BLOCKING,
				FunctionDescriptor.of(POINTER, ValueLayout.JAVA_INT));
		library.requireAll("NVRTC 12 or later");
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment major = arena.allocate(ValueLayout.JAVA_INT);
			MemorySegment minor = arena.allocate(ValueLayout.JAVA_INT);
			check("nvrtcVersion", (int) nvrtcVersion.invokeExact(major.address(), minor.address()));
			this.version = "nvrtc " + major.get(ValueLayout.JAVA_INT, 0) + "." + minor.get(ValueLayout.JAVA_INT, 0);
			check("nvrtcGetNumSupportedArchs", (int) nvrtcGetNumSupportedArchs.invokeExact(major.address()));
			int count = major.get(ValueLayout.JAVA_INT, 0);
			int[] supported = new int[count];
			if (count > 0) {
				MemorySegment archs = arena.allocate(ValueLayout.JAVA_INT, count);
				check("nvrtcGetSupportedArchs", (int) nvrtcGetSupportedArchs.invokeExact(archs.address()));
				MemorySegment.copy(archs, ValueLayout.JAVA_INT, 0, supported, 0, count);
			}
			Arrays.sort(supported);
			this.architectures = supported;
		}
	}

	private static MethodHandle function(NativeLibrary library, String name, MemoryLayout... arguments) {
		return library.function(name, NativeLibrary.BLOCKING, FunctionDescriptor.of(ValueLayout.JAVA_INT, arguments));
	}

	/**
	 * Loads NVRTC for the kernel cache ({@code KernelCache.useCompiler}).
	 * @param module the module that needs compiling, for the failure's message
	 * @param configured {@code offload.kernels.nvrtc-library}, or {@code null}
	 * @return the compiler
	 * @throws NvrtcUnavailableException naming every library tried and why it failed
	 */
	static KernelCompiler load(String module, @Nullable String configured) {
		return load(module, configured, NativeLibrary::load);
	}

	static KernelCompiler load(String module, @Nullable String configured, Function<String, SymbolLookup> opener) {
		boolean isConfigured = configured != null && !configured.isBlank();
		List<String> candidates = (configured != null && isConfigured) ? List.of(configured.strip()) : SONAMES;
		Map<String, String> attempts = new LinkedHashMap<>();
		KernelCompiler compiler = NativeLibrary.open(candidates, isConfigured, attempts, opener,
				(symbols, candidate) -> new Nvrtc(symbols));
		if (compiler == null) {
			throw new NvrtcUnavailableException(module, attempts, isConfigured);
		}
		return compiler;
	}

	@Override
	public String version() {
		return this.version;
	}

	int[] architectures() {
		return this.architectures.clone();
	}

	/**
	 * The device's own architecture when NVRTC knows it (a cubin); otherwise PTX for the
	 * newest architecture it knows below the device's, which the driver compiles (as the
	 * JNA binding chooses).
	 */
	static String target(int[] known, int architecture) {
		if (Arrays.binarySearch(known, architecture) >= 0) {
			return "sm_" + architecture;
		}
		int fallback = (known.length > 0) ? known[0] : architecture;
		for (int each : known) {
			if (each <= architecture) {
				fallback = each;
			}
		}
		return "compute_" + fallback;
	}

	// One compilation at a time, as the JNA binding: older NVRTC releases do not promise
	// thread safety.
	@Override
	public synchronized CompiledImage compile(String module, CudaSource source, int architecture) {
		try {
			return doCompile(module, source, architecture);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new OffloadException("NVRTC failed for module '" + module + "': " + ex, ex);
		}
	}

	private CompiledImage doCompile(String module, CudaSource source, int architecture) throws Throwable {
		String target = target(this.architectures, architecture);
		try (Arena arena = Arena.ofConfined()) {
			Map<String, String> includes = source.includes();
			MemorySegment headers = strings(arena, new ArrayList<>(includes.values()));
			MemorySegment names = strings(arena, new ArrayList<>(includes.keySet()));
			MemorySegment program = arena.allocate(POINTER);
			check("nvrtcCreateProgram",
					(int) this.nvrtcCreateProgram.invokeExact(program.address(),
							arena.allocateFrom(source.text()).address(), arena.allocateFrom(source.name()).address(),
							includes.size(), includes.isEmpty() ? 0L : headers.address(),
							includes.isEmpty() ? 0L : names.address()));
			long handle = program.get(POINTER, 0);
			try {
				List<String> options = new ArrayList<>();
				options.add("--gpu-architecture=" + target);
				options.addAll(source.options());
				int compiled = (int) this.nvrtcCompileProgram.invokeExact(handle, options.size(),
						strings(arena, options).address());
				if (compiled == NVRTC_ERROR_COMPILATION || compiled == NVRTC_ERROR_INVALID_OPTION) {
					String log = log(arena, handle);
					throw new KernelCompilationException(module, source.name(), target,
							log.isBlank() ? errorString(compiled) : log);
				}
				if (compiled != NVRTC_SUCCESS) {
					throw new OffloadException("nvrtcCompileProgram failed for module '" + module + "': " + compiled
							+ " (" + errorString(compiled) + ") in " + this.version + hint(compiled) + ". "
							+ log(arena, handle).strip());
				}
				return new CompiledImage(output(arena, handle, target.startsWith("compute_")), target);
			}
			finally {
				int ignored = (int) this.nvrtcDestroyProgram.invokeExact(program.address());
			}
		}
	}

	private static MemorySegment strings(Arena arena, List<String> values) {
		MemorySegment array = arena.allocate(POINTER, Math.max(1, values.size()));
		for (int i = 0; i < values.size(); i++) {
			array.setAtIndex(POINTER, i, arena.allocateFrom(values.get(i)).address());
		}
		return array;
	}

	private String log(Arena arena, long program) throws Throwable {
		MemorySegment size = arena.allocate(ValueLayout.JAVA_LONG);
		check("nvrtcGetProgramLogSize", (int) this.nvrtcGetProgramLogSize.invokeExact(program, size.address()));
		MemorySegment log = arena.allocate(Math.max(1, size.get(ValueLayout.JAVA_LONG, 0)));
		check("nvrtcGetProgramLog", (int) this.nvrtcGetProgramLog.invokeExact(program, log.address()));
		return log.getString(0, StandardCharsets.UTF_8);
	}

	private byte[] output(Arena arena, long program, boolean ptx) throws Throwable {
		MemorySegment size = arena.allocate(ValueLayout.JAVA_LONG);
		if (ptx) {
			check("nvrtcGetPTXSize", (int) this.nvrtcGetPTXSize.invokeExact(program, size.address()));
		}
		else {
			check("nvrtcGetCUBINSize", (int) this.nvrtcGetCUBINSize.invokeExact(program, size.address()));
		}
		long bytes = size.get(ValueLayout.JAVA_LONG, 0);
		MemorySegment image = arena.allocate(Math.max(1, bytes));
		if (ptx) {
			check("nvrtcGetPTX", (int) this.nvrtcGetPTX.invokeExact(program, image.address()));
		}
		else {
			check("nvrtcGetCUBIN", (int) this.nvrtcGetCUBIN.invokeExact(program, image.address()));
		}
		return image.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
	}

	private String errorString(int result) {
		try {
			long text = (long) this.nvrtcGetErrorString.invokeExact(result);
			return NativeLibrary.string(text, "nvrtcResult " + result);
		}
		catch (Throwable ex) {
			return "nvrtcResult " + result;
		}
	}

	private static String hint(int result) {
		return (result == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
				? "; NVRTC could not load libnvrtc-builtins, which must be on the loader's path (LD_LIBRARY_PATH) "
						+ "beside libnvrtc"
				: "";
	}

	private void check(String call, int result) {
		if (result != NVRTC_SUCCESS) {
			throw new OffloadException(call + " failed: " + result + " (" + errorString(result) + ")"
					+ ((this.version != null) ? " in " + this.version : ""));
		}
	}

}
