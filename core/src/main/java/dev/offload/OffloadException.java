package dev.offload;

import org.jspecify.annotations.Nullable;

/**
 * The root of Offload's unchecked exceptions.
 */
public class OffloadException extends RuntimeException {

	/**
	 * Creates an exception.
	 * @param message what went wrong
	 */
	public OffloadException(String message) {
		super(message);
	}

	/**
	 * Creates an exception.
	 * @param message what went wrong
	 * @param cause the underlying exception
	 */
	public OffloadException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
