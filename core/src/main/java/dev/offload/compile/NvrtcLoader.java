package dev.offload.compile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Finds NVRTC at run time: the configured library, or else the sonames
 * {@code libnvrtc.so.13}, {@code libnvrtc.so.12} and {@code libnvrtc.so} on the loader's
 * path. Loads without JNA on the classpath, which it checks first.
 */
final class NvrtcLoader {

	/**
	 * The sonames tried in order when no library is configured.
	 */
	static final List<String> SONAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");

	static final String JNA_CLASS_NAME = "com.sun.jna.Native";

	private NvrtcLoader() {
	}

	/**
	 * Returns the libraries tried for a configuration.
	 * @param configured {@code offload.kernels.nvrtc-library}, or {@code null} or blank
	 * @return the configured library alone, or the sonames
	 */
	static List<String> candidates(@Nullable String configured) {
		return (configured == null || configured.isBlank()) ? SONAMES : List.of(configured.strip());
	}

	/**
	 * Loads NVRTC.
	 * @param module the module that needs compiling, for the failure's message
	 * @param configured {@code offload.kernels.nvrtc-library}, or {@code null}
	 * @return the compiler
	 * @throws NvrtcUnavailableException naming every library tried and why it failed
	 */
	static KernelCompiler load(String module, @Nullable String configured) {
		boolean isConfigured = configured != null && !configured.isBlank();
		Map<String, String> attempts = new LinkedHashMap<>();
		if (!isJnaPresent()) {
			for (String candidate : candidates(configured)) {
				attempts.put(candidate,
						"not tried: JNA (net.java.dev.jna:jna, class " + JNA_CLASS_NAME + ") is not on the classpath");
			}
			throw new NvrtcUnavailableException(module, attempts, isConfigured);
		}
		KernelCompiler compiler = Nvrtc.open(module, candidates(configured), attempts);
		if (compiler == null) {
			throw new NvrtcUnavailableException(module, attempts, isConfigured);
		}
		return compiler;
	}

	private static boolean isJnaPresent() {
		try {
			Class.forName(JNA_CLASS_NAME, false, NvrtcLoader.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

}
