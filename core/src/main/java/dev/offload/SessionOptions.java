package dev.offload;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import dev.offload.internal.SessionDeadline;

/**
 * How {@link DeviceRegistry#openSession(SessionOptions)} opens a session: on which
 * device, with which stream priority, with which timeout, and for which tenant.
 * <pre>{@code
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
 * @param tenant who the session works for: waits for a stream or for memory of a full
 * device are served fairly across tenants, by the weights and limits of the registry's
 * {@link TenantPolicy}; {@code null} for no tenant, served as
 * {@link TenantPolicy#DEFAULT_TENANT}
 */
public record SessionOptions(int device, StreamPriority priority, @Nullable Duration timeout, long memoryBytes,
		@Nullable String tenant) {

	/**
	 * The device value that picks the least busy device.
	 */
	public static final int ANY_DEVICE = -1;

	/**
	 * The defaults: the least busy device, {@link StreamPriority#NORMAL}, the registry's
	 * default timeout.
	 */
	public static final SessionOptions DEFAULTS = new SessionOptions(ANY_DEVICE, StreamPriority.NORMAL, null, 0, null);

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException if the device is below -1, the priority
	 * {@code null}, the timeout not positive or the memory negative
	 * @throws InvalidSettingException if the tenant is not a valid tenant name
	 * ({@link TenantPolicy#checkTenant})
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
		if (tenant != null) {
			TenantPolicy.checkTenant(tenant, "tenant");
		}
	}

	/**
	 * Creates options without a tenant.
	 * @param device the device's id, or {@link #ANY_DEVICE}
	 * @param priority the priority class of the session's stream
	 * @param timeout the time from opening to the deadline, or {@code null}
	 * @param memoryBytes the device memory to reserve when the session opens, or 0
	 */
	public SessionOptions(int device, StreamPriority priority, @Nullable Duration timeout, long memoryBytes) {
		this(device, priority, timeout, memoryBytes, null);
	}

	/**
	 * Creates options without a memory estimate.
	 * @param device the device's id, or {@link #ANY_DEVICE}
	 * @param priority the priority class of the session's stream
	 * @param timeout the time from opening to the deadline, or {@code null}
	 */
	public SessionOptions(int device, StreamPriority priority, Duration timeout) {
		this(device, priority, timeout, 0, null);
	}

	/**
	 * Returns a copy that reserves device memory for the session's buffers when it opens.
	 * @param bytes the memory the session's buffers are expected to take (each buffer
	 * takes its {@linkplain Device#allocationSize(long) allocation size}), or 0 for none
	 * @return the new options
	 */
	public SessionOptions withMemoryBytes(long bytes) {
		return new SessionOptions(this.device, this.priority, this.timeout, bytes, this.tenant);
	}

	/**
	 * Returns a copy on another device.
	 * @param deviceId the device's id, or {@link #ANY_DEVICE}
	 * @return the new options
	 */
	public SessionOptions withDevice(int deviceId) {
		return new SessionOptions(deviceId, this.priority, this.timeout, this.memoryBytes, this.tenant);
	}

	/**
	 * Returns a copy with another priority.
	 * @param value the priority
	 * @return the new options
	 */
	public SessionOptions withPriority(StreamPriority value) {
		return new SessionOptions(this.device, value, this.timeout, this.memoryBytes, this.tenant);
	}

	/**
	 * Returns a copy with another timeout.
	 * @param value the time from opening to the deadline, or {@code null} for the
	 * registry's default
	 * @return the new options
	 */
	public SessionOptions withTimeout(Duration value) {
		return new SessionOptions(this.device, this.priority, value, this.memoryBytes, this.tenant);
	}

	/**
	 * Returns a copy for another tenant.
	 * @param value the tenant: 1 to 64 characters of letters, digits and
	 * {@code . _ : @ -}; or {@code null} for none (served as
	 * {@link TenantPolicy#DEFAULT_TENANT})
	 * @return the new options
	 * @throws InvalidSettingException if the name breaks that rule
	 */
	public SessionOptions withTenant(@Nullable String value) {
		return new SessionOptions(this.device, this.priority, this.timeout, this.memoryBytes, value);
	}

}
