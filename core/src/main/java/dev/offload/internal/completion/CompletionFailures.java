package dev.offload.internal.completion;

import org.jspecify.annotations.Nullable;

/**
 * The failures this package reports, made by its caller: the completion engine names no
 * type of the API package, which in turn opens it, so the two form no package cycle. The
 * device gives the API's exceptions; each method returns the exception to throw. Not API.
 */
public interface CompletionFailures {

	/**
	 * Returns the failure of work cut short because the device shut down.
	 * @param message what was cut short, and why
	 * @return the exception to throw
	 */
	RuntimeException shutDown(String message);

	/**
	 * Returns a checked (or unknown) failure of a session's work as an unchecked
	 * exception.
	 * @param failure the failure, not a {@link RuntimeException}; {@code null} when
	 * unknown
	 * @return the exception to throw
	 */
	RuntimeException workFailed(@Nullable Throwable failure);

}
