package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A library beside the driver (NVRTC, cuBLAS, NVML) opened through the foreign function
 * API: the candidates (sonames, or a configured path) tried in order with each failure's
 * reason, and the library's functions bound by name, the missing ones collected so that
 * one error names them all.
 */
final class NativeLibrary {

	/**
	 * For calls that neither wait for the device nor take long: no transition of the
	 * thread's state around them.
	 */
	static final Linker.Option[] CRITICAL = { Linker.Option.critical(false) };

	/** For every call that may wait (a synchronization, an allocation, a lock). */
	static final Linker.Option[] BLOCKING = {};

	private static final Linker LINKER = Linker.nativeLinker();

	private final SymbolLookup lookup;

	private final List<String> missing = new ArrayList<>();

	NativeLibrary(SymbolLookup lookup) {
		this.lookup = lookup;
	}

	/**
	 * Opens a library by soname or path into the global arena (it stays loaded).
	 * @param name the soname or path
	 * @return its symbols
	 * @throws IllegalArgumentException if the loader cannot open it
	 */
	static SymbolLookup load(String name) {
		return SymbolLookup.libraryLookup(name, Arena.global());
	}

	/**
	 * Opens the first of {@code candidates} that loads and is the library.
	 * @param <T> the binding
	 * @param candidates sonames or paths, in order
	 * @param configured whether the candidates are a configured path rather than sonames
	 * @param attempts receives each candidate that failed, with why
	 * @param opener opens a candidate's symbols
	 * @param binding makes the binding of a candidate's symbols; throws
	 * {@link UnsatisfiedLinkError} when the library lacks a function
	 * @return the binding, or {@code null} if none loaded
	 */
	static <T> @Nullable T open(List<String> candidates, boolean configured, Map<String, String> attempts,
			Function<String, SymbolLookup> opener, Binding<T> binding) {
		for (String candidate : candidates) {
			try {
				return binding.bind(opener.apply(candidate), candidate);
			}
			catch (Throwable ex) {
				if (ex instanceof VirtualMachineError error) {
					throw error;
				}
				attempts.put(candidate, reason(candidate, configured, ex));
			}
		}
		return null;
	}

	/**
	 * Says why a candidate did not load: the loader's own message tells little ("Cannot
	 * open library"), so what can be checked from Java is added.
	 * @param candidate the soname or path
	 * @param configured whether it was configured
	 * @param error what opening it threw
	 * @return the reason
	 */
	static String reason(String candidate, boolean configured, Throwable error) {
		String message = String.valueOf(error.getMessage()).strip();
		if (error instanceof IllegalArgumentException) {
			if (configured || candidate.contains("/")) {
				Path path = Path.of(candidate);
				if (!Files.exists(path)) {
					return "no such file (" + message + ")";
				}
				if (!Files.isReadable(path)) {
					return "the file cannot be read (" + message + ")";
				}
				return "the file exists but the dynamic loader refused it: not a shared library for this "
						+ "platform, or a library it needs is missing (" + message + ")";
			}
			return "not found on the loader's path (LD_LIBRARY_PATH, ld.so.cache) (" + message + ")";
		}
		if (error instanceof UnsatisfiedLinkError) {
			return "loaded, but " + message;
		}
		return error.getClass().getSimpleName() + ": " + message;
	}

	/**
	 * Binds a function the binding needs; a missing one is remembered for
	 * {@link #requireAll} (and a stand-in that is never called returned).
	 * @param name the symbol
	 * @param options {@link #CRITICAL} or {@link #BLOCKING}
	 * @param descriptor the C signature
	 * @return the downcall
	 */
	MethodHandle function(String name, Linker.Option[] options, FunctionDescriptor descriptor) {
		Optional<MemorySegment> address = this.lookup.find(name);
		if (address.isEmpty()) {
			this.missing.add(name);
			return MethodHandles.empty(descriptor.toMethodType());
		}
		return LINKER.downcallHandle(address.get(), descriptor, options);
	}

	/**
	 * Binds a function the binding works without.
	 * @param name the symbol
	 * @param descriptor the C signature
	 * @return the downcall (blocking), or {@code null} if the library lacks it
	 */
	@Nullable MethodHandle optional(String name, FunctionDescriptor descriptor) {
		return this.lookup.find(name).map((address) -> LINKER.downcallHandle(address, descriptor)).orElse(null);
	}

	/**
	 * Fails if a function bound with {@link #function} was missing.
	 * @param what the library and versions expected, e.g. {@code NVRTC 12 or later}
	 * @throws UnsatisfiedLinkError naming the missing functions
	 */
	void requireAll(String what) {
		if (!this.missing.isEmpty()) {
			throw new UnsatisfiedLinkError("lacks " + String.join(", ", this.missing) + " (not " + what + ")");
		}
	}

	/**
	 * What to throw when a downcall failed in the linker, not in the library: a mismatch
	 * of a binding with its handles, which no input causes. An {@link Error} is thrown as
	 * it is.
	 * @param name the function
	 * @param ex what the downcall threw
	 * @return the exception to throw
	 */
	static RuntimeException linkFailure(String name, Throwable ex) {
		if (ex instanceof Error error) {
			throw error;
		}
		if (ex instanceof RuntimeException runtime) {
			return runtime;
		}
		return new IllegalStateException("The downcall of " + name + " failed", ex);
	}

	/**
	 * Reads a C string a library returned (a status's name or text).
	 * @param address the string's address
	 * @param otherwise what to return for a null pointer
	 * @return the string
	 */
	static String string(long address, String otherwise) {
		return (address != 0) ? MemorySegment.ofAddress(address).reinterpret(4096).getString(0) : otherwise;
	}

	/**
	 * Makes a binding of a loaded library's symbols.
	 *
	 * @param <T> the binding
	 */
	@FunctionalInterface
	interface Binding<T> {

		T bind(SymbolLookup symbols, String candidate) throws Throwable;

	}

}
