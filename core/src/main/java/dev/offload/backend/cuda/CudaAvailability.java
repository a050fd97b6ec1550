package dev.offload.backend.cuda;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link CudaBackend#probe()}: whether CUDA can be used here, and if not,
 * why.
 *
 * @param available whether the driver initialized and has at least one device
 * @param reason why CUDA is unavailable, or {@code null} when it is available
 * @param deviceCount the number of CUDA devices (0 when unavailable)
 * @param driverVersion the driver's CUDA version as {@code 1000 * major + 10 * minor} (0
 * when unknown)
 * @param message a sentence for logs: the devices found, or the reason and the underlying
 * error
 * @param cause the underlying error, or {@code null}
 */
record CudaAvailability(boolean available, CudaUnavailableException.@Nullable Reason reason, int deviceCount,
		int driverVersion, String message, @Nullable Throwable cause) {

	static CudaAvailability available(int deviceCount, int driverVersion) {
		return new CudaAvailability(true, null, deviceCount, driverVersion, deviceCount + " CUDA device(s), driver "
				+ "CUDA " + (driverVersion / 1000) + "." + (driverVersion % 1000) / 10, null);
	}

	static CudaAvailability unavailable(CudaUnavailableException.Reason reason, int driverVersion, String message,
			@Nullable Throwable cause) {
		return new CudaAvailability(false, reason, 0, driverVersion, message, cause);
	}

	/**
	 * Returns the exception that explains why CUDA is unavailable.
	 * @return the exception
	 * @throws IllegalStateException if CUDA is available
	 */
	CudaUnavailableException toException() {
		if (this.available) {
			throw new IllegalStateException("CUDA is available: " + this.message);
		}
		return new CudaUnavailableException(Objects.requireNonNull(this.reason), this.message, this.cause);
	}

}
