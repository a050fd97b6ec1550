package dev.offload.compile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

import dev.offload.OffloadException;
import dev.offload.kernel.CudaSource;

/**
 * {@link KernelCompiler} over NVRTC, called through JNA: any {@code libnvrtc} (CUDA 12,
 * 13 or later) loads by soname with no native build. Only {@link NvrtcLoader} touches
 * this class, once JNA is known to be on the classpath.
 */
final class Nvrtc implements KernelCompiler {

	private static final int NVRTC_SUCCESS = 0;

	private static final int NVRTC_ERROR_INVALID_OPTION = 5;

	private static final int NVRTC_ERROR_COMPILATION = 6;

	private static final int NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7;

	private final NvrtcLibrary library;

	private final String version;

	private final int[] architectures;

	private Nvrtc(NvrtcLibrary library) {
		this.library = library;
		IntByReference major = new IntByReference();
		IntByReference minor = new IntByReference();
		check("nvrtcVersion", library.nvrtcVersion(major, minor));
		this.version = "nvrtc " + major.getValue() + "." + minor.getValue();
		IntByReference count = new IntByReference();
		check("nvrtcGetNumSupportedArchs", library.nvrtcGetNumSupportedArchs(count));
		int[] supported = new int[count.getValue()];
		if (supported.length > 0) {
			check("nvrtcGetSupportedArchs", library.nvrtcGetSupportedArchs(supported));
		}
		Arrays.sort(supported);
		this.architectures = supported;
	}

	/**
	 * Loads NVRTC from the first library of {@code candidates} that loads.
	 * @param module the module that needs compiling, for the failure's message
	 * @param candidates sonames or paths, in order
	 * @param attempts receives each failed candidate with why it failed
	 * @return the compiler, or {@code null} if none loaded
	 */
	static @Nullable Nvrtc open(String module, Iterable<String> candidates, Map<String, String> attempts) {
		for (String candidate : candidates) {
			try {
				return new Nvrtc(Native.load(candidate, NvrtcLibrary.class));
			}
			catch (UnsatisfiedLinkError ex) {
				attempts.put(candidate, reason(ex));
			}
		}
		return null;
	}

	/**
	 * The loader's own reason (e.g. "cannot open shared object file"), without JNA's
	 * preamble and repeats.
	 */
	private static String reason(UnsatisfiedLinkError error) {
		List<String> lines = String.valueOf(error.getMessage())
			.lines()
			.map(String::strip)
			.filter((line) -> !line.isEmpty() && !line.startsWith("Unable to load library")
					&& !line.startsWith("Native library ("))
			.distinct()
			.toList();
		return lines.isEmpty() ? String.valueOf(error.getMessage()).strip() : String.join("; ", lines);
	}

	@Override
	public String version() {
		return this.version;
	}

	/**
	 * Returns the architectures this NVRTC compiles cubins for.
	 * @return e.g. {@code [75, 80, ..., 90, 100, 120]}, ascending
	 */
	int[] architectures() {
		return this.architectures.clone();
	}

	// One compilation at a time: older NVRTC releases do not promise thread safety, and
	// compilations happen at startup, where one key per module and architecture leaves
	// little to run in parallel.
	@Override
	public synchronized CompiledImage compile(String module, CudaSource source, int architecture) {
		String target = target(this.architectures, architecture);
		PointerByReference handle = new PointerByReference();
		String[] headers = source.includes().values().toArray(String[]::new);
		String[] names = source.includes().keySet().toArray(String[]::new);
		check("nvrtcCreateProgram", this.library.nvrtcCreateProgram(handle, source.text(), source.name(),
				headers.length, (headers.length > 0) ? headers : null, (names.length > 0) ? names : null));
		Pointer program = handle.getValue();
		try {
			String[] options = options(source, target);
			int compiled = this.library.nvrtcCompileProgram(program, options.length, options);
			if (compiled == NVRTC_ERROR_COMPILATION || compiled == NVRTC_ERROR_INVALID_OPTION) {
				// An invalid option is the definition's error too; NVRTC's log names it.
				String log = log(program);
				throw new KernelCompilationException(module, source.name(), target,
						log.isBlank() ? this.library.nvrtcGetErrorString(compiled) : log);
			}
			if (compiled != NVRTC_SUCCESS) {
				throw new OffloadException("nvrtcCompileProgram failed for module '" + module + "': " + compiled + " ("
						+ this.library.nvrtcGetErrorString(compiled) + ") in " + this.version + hint(compiled) + ". "
						+ log(program).strip());
			}
			return new CompiledImage(output(program, target.startsWith("compute_")), target);
		}
		finally {
			this.library.nvrtcDestroyProgram(handle);
		}
	}

	/**
	 * The device's own architecture when NVRTC knows it (a cubin); otherwise PTX for the
	 * newest architecture it knows below the device's, which the driver compiles.
	 * @param known the architectures NVRTC compiles cubins for, ascending
	 * @param architecture the device's
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

	private static String hint(int result) {
		// NVRTC loads its builtins library (libnvrtc-builtins.so.<version>) itself, by
		// soname: it must be on the loader's path too.
		return (result == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
				? "; NVRTC could not load libnvrtc-builtins, which must be on the loader's path (LD_LIBRARY_PATH) "
						+ "beside libnvrtc"
				: "";
	}

	private static String[] options(CudaSource source, String target) {
		String[] options = new String[source.options().size() + 1];
		options[0] = "--gpu-architecture=" + target;
		for (int i = 0; i < source.options().size(); i++) {
			options[i + 1] = source.options().get(i);
		}
		return options;
	}

	private String log(Pointer program) {
		LongByReference size = new LongByReference();
		check("nvrtcGetProgramLogSize", this.library.nvrtcGetProgramLogSize(program, size));
		byte[] log = new byte[(int) Math.max(1, size.getValue())];
		check("nvrtcGetProgramLog", this.library.nvrtcGetProgramLog(program, log));
		return cString(log);
	}

	private byte[] output(Pointer program, boolean ptx) {
		LongByReference size = new LongByReference();
		if (ptx) {
			check("nvrtcGetPTXSize", this.library.nvrtcGetPTXSize(program, size));
			byte[] text = new byte[(int) size.getValue()];
			check("nvrtcGetPTX", this.library.nvrtcGetPTX(program, text));
			return text;
		}
		check("nvrtcGetCUBINSize", this.library.nvrtcGetCUBINSize(program, size));
		byte[] cubin = new byte[(int) size.getValue()];
		check("nvrtcGetCUBIN", this.library.nvrtcGetCUBIN(program, cubin));
		return cubin;
	}

	private void check(String call, int result) {
		if (result != NVRTC_SUCCESS) {
			throw new OffloadException(call + " failed: " + result + " (" + this.library.nvrtcGetErrorString(result)
					+ ") in " + this.version);
		}
	}

	private static String cString(byte[] bytes) {
		int length = 0;
		while (length < bytes.length && bytes[length] != 0) {
			length++;
		}
		return new String(bytes, 0, length, StandardCharsets.UTF_8);
	}

	/**
	 * The NVRTC functions Offload calls ({@code nvrtc.h}); {@code size_t} is 64-bit on
	 * the 64-bit Linux the CUDA backend runs on.
	 */
	interface NvrtcLibrary extends Library {

		int nvrtcVersion(IntByReference major, IntByReference minor);

		int nvrtcGetNumSupportedArchs(IntByReference count);

		int nvrtcGetSupportedArchs(int[] architectures);

		int nvrtcCreateProgram(PointerByReference program, String source, String name, int numHeaders,
				String @Nullable [] headers, String @Nullable [] includeNames);

		int nvrtcCompileProgram(Pointer program, int numOptions, String[] options);

		int nvrtcGetProgramLogSize(Pointer program, LongByReference size);

		int nvrtcGetProgramLog(Pointer program, byte[] log);

		int nvrtcGetCUBINSize(Pointer program, LongByReference size);

		int nvrtcGetCUBIN(Pointer program, byte[] cubin);

		int nvrtcGetPTXSize(Pointer program, LongByReference size);

		int nvrtcGetPTX(Pointer program, byte[] ptx);

		int nvrtcDestroyProgram(PointerByReference program);

		String nvrtcGetErrorString(int result);

	}

}
