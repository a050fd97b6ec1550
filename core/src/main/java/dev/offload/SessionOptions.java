package dev.offload;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import dev.offload.internal.SessionDeadline;

/**
 * How {@link DeviceRegistry#openSession(SessionOptions)} opens a session: on which
 * device, with which stream priority, and with which timeout. <pre>{@code
 * try (OffloadSession session = registry.openSession(SessionOptions.DEFAULTS
 *         .withPriority(StreamPriority.HIGH)
 *         .withTimeout(Duration.ofSeconds(2)))) {
 *     ...
 * }
 * }</pre>
 *
 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
 * @param priority the priority class of the session's stream
 * @param timeout the time from opening to the session's deadline, or {@code null} for the
 * registry's default session timeout
 * @param memoryBytes the device memory the session's buffers are expected to take,
 * reserved in the device's budget when it opens ({@link OffloadSession#reserveMemory}),
 * or 0 to reserve as buffers are allocated
 */
public record SessionOptions(int device, StreamPriority priority, @Nullable Duration timeout, long memoryBytes) {

	/**
	 * The device value that picks the least busy device.
	 */
	public static final int ANY_DEVICE = -1;

	/**
	 * The defaults: the least busy device, {@link StreamPriority#NORMAL}, the registry's
	 * default timeout.
	 */
	public static final SessionOptions DEFAULTS = new SessionOptions(ANY_DEVICE, StreamPriority.NORMAL, null, 0);

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException if the device is below -1, the priority
	 * {@code null}, the timeout not positive or the memory negative
	 */
	public SessionOptions {
		if (memoryBytes < 0) {
			throw new IllegalArgumentException("memoryBytes must be at least 0, was " + memoryBytes);
		}
		if (device < ANY_DEVICE) {
			throw new IllegalArgumentException(
					"device must be -1 (the least busy device) or a device id, was " + device);
		}
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
		SessionDeadline.checked(timeout, "timeout");
	}

	/**
	 * Creates options without a memory estimate.
	 * @param device the device's id, or {@link #ANY_DEVICE}
	 * @param priority the priority class of the session's stream
	 * @param timeout the time from opening to the deadline, or {@code null}
	 */
	public SessionOptions(int device, StreamPriority priority, Duration timeout) {
		this(device, priority, timeout, 0);
	}

	/**
	 * Returns a copy that reserves device memory for the session's buffers when it opens.
	 * @param bytes the memory the session's buffers are expected to take (each buffer
	 * takes its {@linkplain Device#allocationSize(long) allocation size}), or 0 for none
	 * @return the new options
	 */
	public SessionOptions withMemoryBytes(long bytes) {
		return new SessionOptions(this.device, this.priority, this.timeout, bytes);
	}

	/**
	 * Returns a copy on another device.
	 * @param deviceId the device's id, or {@link #ANY_DEVICE}
	 * @return the new options
	 */
	public SessionOptions withDevice(int deviceId) {
		return new SessionOptions(deviceId, this.priority, this.timeout, this.memoryBytes);
	}

	/**
	 * Returns a copy with another priority.
	 * @param value the priority
	 * @return the new options
	 */
	public SessionOptions withPriority(StreamPriority value) {
		return new SessionOptions(this.device, value, this.timeout, this.memoryBytes);
	}

	/**
	 * Returns a copy with another timeout.
	 * @param value the time from opening to the deadline, or {@code null} for the
	 * registry's default
	 * @return the new options
	 */
	public SessionOptions withTimeout(Duration value) {
		return new SessionOptions(this.device, this.priority, value, this.memoryBytes);
	}

}
