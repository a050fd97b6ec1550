package dev.offload.blas;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.blas.CublasBinding;

/**
 * Finds cuBLAS at run time: the configured library, or else the sonames
 * {@code libcublas.so.13} and {@code libcublas.so.12} on the loader's path, through the
 * binding the stream's backend brings (the FFM backend's), or else JNA, which it checks
 * first. A library that loaded is kept for the process (one per binding and
 * configuration); a failure is not, so that a library installed later is found.
 */
final class CublasLoader {

	/**
	 * The sonames tried in order when no library is configured: CUDA 13's, then 12's.
	 */
	static final List<String> SONAMES = List.of("libcublas.so.13", "libcublas.so.12");

	static final String JNA_CLASS_NAME = "com.sun.jna.Native";

	/** The binding of the JCuda backend, and of any backend that brings none. */
	static final CublasBinding.Loader JNA = new Jna();

	private static final Map<String, CublasBinding> loaded = new ConcurrentHashMap<>();

	/** A lock, not a monitor: a virtual thread that waits for it must not pin. */
	private static final ReentrantLock loading = new ReentrantLock();

	private CublasLoader() {
	}

	/**
	 * Returns the libraries tried for a configuration.
	 * @param configured {@code offload.blas.library}, or {@code null} or blank
	 * @return the configured library alone, or the sonames
	 */
	static List<String> candidates(@Nullable String configured) {
		return (configured == null || configured.isBlank()) ? SONAMES : List.of(configured.strip());
	}

	/**
	 * Loads cuBLAS through JNA.
	 * @param configured {@code offload.blas.library}, or {@code null}
	 * @return the binding
	 * @throws BlasUnavailableException naming every library tried and why it failed
	 */
	static CublasBinding load(@Nullable String configured) {
		return load(JNA, configured);
	}

	/**
	 * Loads cuBLAS through a binding: JNA's, or the one the stream's backend brings.
	 * @param loader the binding's loader
	 * @param configured {@code offload.blas.library}, or {@code null}
	 * @return the binding
	 * @throws BlasUnavailableException naming every library tried and why it failed
	 */
	static CublasBinding load(CublasBinding.Loader loader, @Nullable String configured) {
		String key = loader.name() + ":" + String.join(",", candidates(configured));
		CublasBinding binding = loaded.get(key);
		if (binding != null) {
			return binding;
		}
		loading.lock();
		try {
			binding = loaded.get(key);
			if (binding == null) {
				binding = open(loader, configured);
				loaded.put(key, binding);
			}
			return binding;
		}
		finally {
			loading.unlock();
		}
	}

	private static CublasBinding open(CublasBinding.Loader loader, @Nullable String configured) {
		boolean isConfigured = configured != null && !configured.isBlank();
		Map<String, String> attempts = new LinkedHashMap<>();
		CublasBinding binding = loader.open(candidates(configured), attempts);
		if (binding == null) {
			throw new BlasUnavailableException("cuBLAS", attempts, isConfigured);
		}
		return binding;
	}

	private static boolean isJnaPresent() {
		try {
			Class.forName(JNA_CLASS_NAME, false, CublasLoader.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * JNA's binding, checking first that JNA is there.
	 */
	private static final class Jna implements CublasBinding.Loader {

		@Override
		public String name() {
			return "jna";
		}

		@Override
		public @Nullable CublasBinding open(List<String> candidates, Map<String, String> attempts) {
			if (!isJnaPresent()) {
				for (String candidate : candidates) {
					attempts.put(candidate, "not tried: JNA (net.java.dev.jna:jna, class " + JNA_CLASS_NAME
							+ ") is not on the classpath");
				}
				return null;
			}
			return JnaCublas.open(candidates, attempts);
		}

	}

}
