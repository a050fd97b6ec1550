package dev.offload.blas;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * Finds cuBLAS at run time: the configured library, or else the sonames
 * {@code libcublas.so.13} and {@code libcublas.so.12} on the loader's path, through JNA,
 * which it checks first. A library that loaded is kept for the process (one per
 * configuration); a failure is not, so that a library installed later is found.
 */
final class CublasLoader {

	/**
	 * The sonames tried in order when no library is configured: CUDA 13's, then 12's.
	 */
	static final List<String> SONAMES = List.of("libcublas.so.13", "libcublas.so.12");

	static final String JNA_CLASS_NAME = "com.sun.jna.Native";

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
	 * Loads cuBLAS.
	 * @param configured {@code offload.blas.library}, or {@code null}
	 * @return the binding
	 * @throws BlasUnavailableException naming every library tried and why it failed
	 */
	static CublasBinding load(@Nullable String configured) {
		String key = String.join(",", candidates(configured));
		CublasBinding binding = loaded.get(key);
		if (binding != null) {
			return binding;
		}
		loading.lock();
		try {
			binding = loaded.get(key);
			if (binding == null) {
				binding = open(configured);
				loaded.put(key, binding);
			}
			return binding;
		}
		finally {
			loading.unlock();
		}
	}

	private static CublasBinding open(@Nullable String configured) {
		boolean isConfigured = configured != null && !configured.isBlank();
		Map<String, String> attempts = new LinkedHashMap<>();
		if (!isJnaPresent()) {
			for (String candidate : candidates(configured)) {
				attempts.put(candidate,
						"not tried: JNA (net.java.dev.jna:jna, class " + JNA_CLASS_NAME + ") is not on the classpath");
			}
			throw new BlasUnavailableException("cuBLAS", attempts, isConfigured);
		}
		CublasBinding binding = JnaCublas.open(candidates(configured), attempts);
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

}
