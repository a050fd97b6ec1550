package dev.offload.backend.cuda;

import org.jspecify.annotations.Nullable;

import dev.offload.OffloadException;

/**
 * CUDA cannot be used in this process: JCuda's natives (or the NVIDIA driver they link
 * to) could not load, the machine has no CUDA device, or the driver failed to initialize.
 * The {@link #getReason() reason} says which, the message carries the underlying error.
 */
public class CudaUnavailableException extends OffloadException {

	private final Reason reason;

	/**
	 * Creates an exception.
	 * @param reason why CUDA is unavailable
	 * @param message the explanation, with the underlying error
	 * @param cause the underlying error, or {@code null}
	 */
	public CudaUnavailableException(Reason reason, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.reason = reason;
	}

	/**
	 * Returns why CUDA is unavailable.
	 * @return the reason
	 */
	public Reason getReason() {
		return this.reason;
	}

	/**
	 * Why CUDA is unavailable.
	 */
	public enum Reason {

		/**
		 * JCuda is not on the classpath, or its native library (or {@code libcuda.so.1},
		 * the NVIDIA driver it links to) could not load.
		 */
		NATIVES_MISSING,

		/**
		 * The driver works but reports no CUDA device.
		 */
		NO_DEVICE,

		/**
		 * {@code cuInit} or device discovery failed with another error (an old driver, a
		 * stub library, among others).
		 */
		INIT_FAILED

	}

}
