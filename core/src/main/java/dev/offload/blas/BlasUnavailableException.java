package dev.offload.blas;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.offload.OffloadException;

/**
 * Thrown when a session on a GPU calls BLAS and cuBLAS cannot be loaded (or, on the host
 * emulation, EJML is missing): says which libraries were tried and why each failed.
 */
public class BlasUnavailableException extends OffloadException {

	private final String library;

	private final Map<String, String> attempts;

	private final boolean configured;

	/**
	 * Creates an exception.
	 * @param library what could not be loaded: {@code cuBLAS}, or {@code EJML} for the
	 * host emulation
	 * @param attempts each library tried (a soname or a path), with why it did not load
	 * @param configured whether the library was configured ({@code offload.blas.library})
	 * rather than searched by soname
	 */
	public BlasUnavailableException(String library, Map<String, String> attempts, boolean configured) {
		super(library + " is needed for a BLAS call and could not be loaded; tried "
				+ String.join(", ", attempts.keySet()) + ": "
				+ (attempts.isEmpty() ? "nothing" : attempts.values().iterator().next()));
		this.library = library;
		this.attempts = Collections.unmodifiableMap(new LinkedHashMap<>(attempts));
		this.configured = configured;
	}

	/**
	 * Returns what could not be loaded.
	 * @return {@code cuBLAS} or {@code EJML}
	 */
	public String getLibrary() {
		return this.library;
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
	 * @return {@code true} if {@code offload.blas.library} was set
	 */
	public boolean isConfigured() {
		return this.configured;
	}

}
