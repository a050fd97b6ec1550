package dev.offload;

/**
 * The host had no page-locked memory for a device's staging ({@code cuMemHostAlloc}
 * failed; the host emulation's allocation of its staging failed): the system is short of
 * memory it can pin (its RAM, or the locked-memory limit, {@code ulimit -l}). A
 * {@link DeviceOutOfMemoryException}, so retryable like it: the device stays healthy and
 * other sessions go on; retry later or with less staging at once. Its sizes are of
 * page-locked host memory: {@link #getRequestedBytes()} the allocation the host refused
 * (a staging chunk, or a buffer too large for one), {@link #getUsedBytes()} the staging
 * held by open buffers, {@link #getCachedBytes()} the staging kept for reuse,
 * {@link #getTotalBytes()} all page-locked memory the device's staging held;
 * {@link #getFreeBytes()} is -1 (unknown).
 */
public class HostStagingOutOfMemoryException extends DeviceOutOfMemoryException {

	/**
	 * Creates an exception.
	 * @param deviceId the device whose staging it was
	 * @param requestedBytes the page-locked allocation the host refused
	 * @param usedBytes the staging held by open buffers
	 * @param cachedBytes the staging kept for reuse
	 * @param totalBytes the page-locked memory the staging held in all
	 * @param cause the backend's error
	 */
	public HostStagingOutOfMemoryException(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long totalBytes, Throwable cause) {
		super("Device " + deviceId + " could not get page-locked host memory for staging: the host refused "
				+ requestedBytes + " bytes; staging holds " + totalBytes + " (in use " + usedBytes + ", kept "
				+ cachedBytes + "). The host is short of memory it can pin (RAM, or ulimit -l)", deviceId,
				requestedBytes, usedBytes, cachedBytes, -1, totalBytes, cause);
	}

}
