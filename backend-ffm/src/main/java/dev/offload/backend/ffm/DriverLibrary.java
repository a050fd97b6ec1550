package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * {@code libcuda.so.1}, loaded by soname once per process, and the addresses of the
 * driver functions the backend calls. Each is resolved through {@code cuGetProcAddress}
 * (its {@code _v2} form, CUDA 12.0 and later) for the ABI of CUDA {@value #ABI_VERSION},
 * so that the versioned functions ({@code cuMemAlloc_v2}, {@code cuStreamDestroy_v2},
 * ...) are the ones this binding was written for on any later driver; where that call is
 * missing (a driver before 12.0), the plain symbols are looked up, with their {@code _v2}
 * names where the header maps a function to one.
 */
final class DriverLibrary {

	/** The driver's soname. */
	static final String SONAME = "libcuda.so.1";

	/** The CUDA version whose ABI the functions are asked for: 12.0. */
	static final int ABI_VERSION = 12000;

	/** {@code CU_GET_PROC_ADDRESS_DEFAULT}. */
	private static final long PROC_ADDRESS_DEFAULT = 0;

	/** {@code CU_GET_PROC_ADDRESS_SUCCESS}. */
	private static final int PROC_ADDRESS_SUCCESS = 0;

	/**
	 * Every function the backend calls, by its name in {@code cuda.h} (the name given to
	 * {@code cuGetProcAddress}), with the exported symbol of the same ABI where it
	 * differs.
	 */
	static final Map<String, String> FUNCTIONS = functions();

	/** Functions the backend works without (older drivers lack them). */
	static final List<String> OPTIONAL = List.of();

	private static volatile @Nullable DriverLibrary loaded;

	private final Map<String, MemorySegment> addresses;

	private final String resolution;

	private DriverLibrary(Map<String, MemorySegment> addresses, String resolution) {
		this.addresses = addresses;
		this.resolution = resolution;
	}

	private static Map<String, String> functions() {
		Map<String, String> functions = new LinkedHashMap<>();
		for (String plain : List.of("cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet",
				"cuDeviceGetName", "cuDeviceGetAttribute", "cuGetErrorName", "cuGetErrorString",
				"cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuCtxGetCurrent", "cuCtxSynchronize",
				"cuCtxGetStreamPriorityRange", "cuStreamCreateWithPriority", "cuStreamQuery", "cuStreamSynchronize",
				"cuStreamWaitEvent", "cuStreamEndCapture", "cuGraphInstantiateWithFlags", "cuGraphLaunch",
				"cuGraphDestroy", "cuGraphExecDestroy", "cuEventCreate", "cuEventRecord", "cuEventQuery",
				"cuEventSynchronize", "cuMemAllocAsync", "cuMemFreeAsync", "cuMemHostAlloc", "cuMemFreeHost",
				"cuMemcpyAsync", "cuMemsetD8Async", "cuModuleLoadData", "cuModuleGetFunction", "cuModuleUnload",
				"cuLaunchKernel")) {
			functions.put(plain, plain);
		}
		// cuda.h maps these names to their _v2 symbols.
		for (String versioned : List.of("cuDeviceGetUuid", "cuDeviceTotalMem", "cuDevicePrimaryCtxRelease",
				"cuStreamBeginCapture", "cuStreamDestroy", "cuEventDestroy", "cuMemAlloc", "cuMemFree", "cuMemGetInfo",
				"cuMemHostGetDevicePointer", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync")) {
			functions.put(versioned, versioned + "_v2");
		}
		return java.util.Collections.unmodifiableMap(functions);
	}

	/**
	 * Returns the library once {@link #load()} succeeded.
	 * @return the library
	 * @throws IllegalStateException if it was not loaded
	 */
	static DriverLibrary get() {
		DriverLibrary library = loaded;
		if (library == null) {
			throw new IllegalStateException(SONAME + " is not loaded: probe the FFM backend first");
		}
		return library;
	}

	static boolean isLoaded() {
		return loaded != null;
	}

	/**
	 * Loads the driver and resolves every function; the first successful call wins.
	 * @param lookup finds the library's exported symbols
	 * @return the library
	 * @throws DriverUnavailableException naming what is missing
	 */
	static synchronized DriverLibrary load(SymbolLookup lookup) {
		DriverLibrary library = loaded;
		if (library == null) {
			library = resolve(lookup);
			loaded = library;
		}
		return library;
	}

	/**
	 * Opens {@value #SONAME} through the dynamic loader's search (the library path,
	 * {@code ld.so.cache}); the library stays loaded for the life of the process.
	 * @return its symbols
	 * @throws DriverUnavailableException if it cannot be opened
	 */
	static SymbolLookup open() {
		try {
			return SymbolLookup.libraryLookup(SONAME, Arena.global());
		}
		catch (IllegalArgumentException ex) {
			throw new DriverUnavailableException("the NVIDIA driver library " + SONAME + " could not be loaded (no "
					+ "NVIDIA driver installed, or not on the loader's path: LD_LIBRARY_PATH, ld.so.cache): "
					+ ex.getMessage(), ex);
		}
	}

	static DriverLibrary resolve(SymbolLookup lookup) {
		Optional<MemorySegment> getProcAddress = lookup.find("cuGetProcAddress_v2");
		Map<String, MemorySegment> addresses = new LinkedHashMap<>();
		List<String> missing = new ArrayList<>();
		MethodHandle resolver = getProcAddress.map(DriverLibrary::resolver).orElse(null);
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment function = arena.allocate(ValueLayout.ADDRESS);
			MemorySegment status = arena.allocate(ValueLayout.JAVA_INT);
			for (Map.Entry<String, String> entry : FUNCTIONS.entrySet()) {
				MemorySegment address = null;
				if (resolver != null) {
					address = procAddress(resolver, arena, entry.getKey(), function, status);
				}
				if (address == null) {
					address = lookup.find(entry.getValue()).orElse(null);
				}
				if (address == null) {
					if (!OPTIONAL.contains(entry.getKey())) {
						missing.add(entry.getKey());
					}
				}
				else {
					addresses.put(entry.getKey(), address);
				}
			}
		}
		if (!missing.isEmpty()) {
			throw new DriverUnavailableException(SONAME + " lacks " + String.join(", ", missing)
					+ ": the NVIDIA driver is older than CUDA 12.0, which the FFM backend needs", null);
		}
		return new DriverLibrary(Map.copyOf(addresses),
				(resolver != null) ? "cuGetProcAddress_v2 (ABI " + ABI_VERSION / 1000 + ".0)" : "exported symbols");
	}

	private static MethodHandle resolver(MemorySegment address) {
		return Linker.nativeLinker()
			.downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
					ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
	}

	private static @Nullable MemorySegment procAddress(MethodHandle resolver, Arena arena, String name,
			MemorySegment function, MemorySegment status) {
		try {
			function.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
			status.set(ValueLayout.JAVA_INT, 0, -1);
			int result = (int) resolver.invokeExact(arena.allocateFrom(name), function, ABI_VERSION,
					PROC_ADDRESS_DEFAULT, status);
			MemorySegment address = function.get(ValueLayout.ADDRESS, 0);
			if (result == 0 && status.get(ValueLayout.JAVA_INT, 0) == PROC_ADDRESS_SUCCESS
					&& !MemorySegment.NULL.equals(address)) {
				return address;
			}
			return null;
		}
		catch (Throwable ex) {
			return null;
		}
	}

	/**
	 * Returns a function's address.
	 * @param name its name in {@code cuda.h}
	 * @return the address
	 */
	MemorySegment address(String name) {
		MemorySegment address = this.addresses.get(name);
		if (address == null) {
			throw new IllegalStateException(name + " was not resolved from " + SONAME);
		}
		return address;
	}

	/**
	 * Says how the functions were resolved, for the probe's message.
	 * @return e.g. {@code cuGetProcAddress_v2 (ABI 12.0)}
	 */
	String resolution() {
		return this.resolution;
	}

	/**
	 * The driver cannot be used through this binding.
	 */
	static final class DriverUnavailableException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		DriverUnavailableException(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
