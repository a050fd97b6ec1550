package dev.offload.compile;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.offload.OffloadException;

/**
 * Thrown when a module from CUDA C source must be compiled and NVRTC (CUDA's run-time
 * compiler) cannot be loaded: says which libraries were tried and why each failed.
 */
public class NvrtcUnavailableException extends OffloadException {

	private final String module;

	private final Map<String, String> attempts;

	private final boolean configured;

	/**
	 * Creates an exception.
	 * @param module the module that needed compiling
	 * @param attempts each library tried (a soname or a path), with why it did not load
	 * @param configured whether the library was configured
	 * ({@code offload.kernels.nvrtc-library}) rather than searched by soname
	 */
	public NvrtcUnavailableException(String module, Map<String, String> attempts, boolean configured) {
		super("NVRTC (CUDA's run-time compiler) is needed to compile the CUDA source of module '" + module
				+ "' and could not be loaded; tried " + String.join(", ", attempts.keySet()) + ": "
				+ attempts.values().iterator().next());
		this.module = module;
		this.attempts = Collections.unmodifiableMap(new LinkedHashMap<>(attempts));
		this.configured = configured;
	}

	/**
	 * Returns the module that needed compiling.
	 * @return the module's name
	 */
	public String getModule() {
		return this.module;
	}

	/**
	 * Returns each library tried, in order, with why it did not load.
	 * @return the attempts, by soname or path
	 */
	public Map<String, String> getAttempts() {
		return this.attempts;
	}

	/**
	 * Tells whether a configured path was tried rather than the sonames.
	 * @return {@code true} if {@code offload.kernels.nvrtc-library} was set
	 */
	public boolean isConfigured() {
		return this.configured;
	}

}
