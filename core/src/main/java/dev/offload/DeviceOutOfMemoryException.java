package dev.offload;

/**
 * The device had no memory for an allocation even after Offload trimmed its buffer cache,
 * waited for the frees in flight and retried once. Retryable: the error is not sticky,
 * the device stays healthy and other sessions go on; retry later, with less, or bound
 * what sessions take with {@code offload.memory.budget}.
 */
public class DeviceOutOfMemoryException extends OffloadException {

	private final int deviceId;

	private final long requestedBytes;

	private final long usedBytes;

	private final long cachedBytes;

	private final long freeBytes;

	private final long totalBytes;

	/**
	 * Creates an exception.
	 * @param deviceId the device
	 * @param requestedBytes the size asked for
	 * @param usedBytes the device memory Offload's buffers held
	 * @param cachedBytes the device memory Offload's cache held (after trimming)
	 * @param freeBytes the memory the driver reported free, or -1 if unknown
	 * @param totalBytes the device's total memory
	 * @param cause the driver's error
	 */
	public DeviceOutOfMemoryException(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long freeBytes, long totalBytes, Throwable cause) {
		this("Device " + deviceId + " is out of memory: requested " + requestedBytes + " bytes, in use " + usedBytes
				+ ", cached " + cachedBytes + ", free " + ((freeBytes >= 0) ? freeBytes : "unknown") + ", total "
				+ totalBytes + " (after trimming the cache and one retry)", deviceId, requestedBytes, usedBytes,
				cachedBytes, freeBytes, totalBytes, cause);
	}

	/**
	 * Creates an exception with its own message, for a subtype.
	 * @param message the message
	 * @param deviceId the device
	 * @param requestedBytes the size asked for
	 * @param usedBytes the memory Offload's buffers held
	 * @param cachedBytes the memory Offload kept for reuse
	 * @param freeBytes the memory the driver reported free, or -1 if unknown
	 * @param totalBytes the total memory
	 * @param cause the driver's error
	 */
	protected DeviceOutOfMemoryException(String message, int deviceId, long requestedBytes, long usedBytes,
			long cachedBytes, long freeBytes, long totalBytes, Throwable cause) {
		super(message, cause);
		this.deviceId = deviceId;
		this.requestedBytes = requestedBytes;
		this.usedBytes = usedBytes;
		this.cachedBytes = cachedBytes;
		this.freeBytes = freeBytes;
		this.totalBytes = totalBytes;
	}

	/**
	 * Returns the device.
	 * @return the device id
	 */
	public int getDeviceId() {
		return this.deviceId;
	}

	/**
	 * Returns the size asked for.
	 * @return the requested bytes
	 */
	public long getRequestedBytes() {
		return this.requestedBytes;
	}

	/**
	 * Returns the device memory Offload's buffers held when the allocation failed.
	 * @return the bytes in use
	 */
	public long getUsedBytes() {
		return this.usedBytes;
	}

	/**
	 * Returns the device memory Offload's cache held after trimming.
	 * @return the cached bytes
	 */
	public long getCachedBytes() {
		return this.cachedBytes;
	}

	/**
	 * Returns the memory the driver reported free.
	 * @return the free bytes, or -1 if unknown
	 */
	public long getFreeBytes() {
		return this.freeBytes;
	}

	/**
	 * Returns the device's total memory.
	 * @return the total bytes
	 */
	public long getTotalBytes() {
		return this.totalBytes;
	}

}
