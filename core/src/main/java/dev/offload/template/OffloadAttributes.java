package dev.offload.template;

import dev.offload.StreamPriority;

/**
 * What an {@link Offload @Offload} call or an {@link OffloadTemplate} callback asks of its session: the device, the
 * {@link Propagation} and the priority of a new session's stream (Spring's {@code TransactionDefinition}).
 *
 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
 * @param propagation how the call relates to the bound session
 * @param priority the priority class of a new session's stream
 */
public record OffloadAttributes(int device, Propagation propagation, StreamPriority priority) {

	/**
	 * The device value that picks the least busy device.
	 */
	public static final int ANY_DEVICE = -1;

	/**
	 * The defaults: any device, {@link Propagation#REQUIRED}, {@link StreamPriority#NORMAL}.
	 */
	public static final OffloadAttributes DEFAULTS = new OffloadAttributes(ANY_DEVICE, Propagation.REQUIRED,
			StreamPriority.NORMAL);

	/**
	 * Checks the values.
	 * @param device the device's id, or {@link #ANY_DEVICE} for the least busy one
	 * @param propagation how the call relates to the bound session
	 * @param priority the priority class of a new session's stream
	 * @throws IllegalArgumentException if the device is below -1 or a value is {@code null}
	 */
	public OffloadAttributes {
		if (device < ANY_DEVICE) {
			throw new IllegalArgumentException("device must be -1 (the least busy device) or a device id, was "
					+ device);
		}
		if (propagation == null) {
			throw new IllegalArgumentException("propagation must not be null");
		}
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
	}

	/**
	 * Returns the attributes of an annotation.
	 * @param offload the annotation
	 * @return its attributes
	 * @throws IllegalArgumentException if its device is below -1
	 */
	public static OffloadAttributes of(Offload offload) {
		return new OffloadAttributes(offload.device(), offload.propagation(), offload.priority());
	}

	/**
	 * Tells whether any device will do.
	 * @return {@code true} if {@link #device()} is {@link #ANY_DEVICE}
	 */
	public boolean anyDevice() {
		return this.device == ANY_DEVICE;
	}

	/**
	 * Returns a copy on another device.
	 * @param deviceId the device's id, or {@link #ANY_DEVICE}
	 * @return the new attributes
	 */
	public OffloadAttributes withDevice(int deviceId) {
		return new OffloadAttributes(deviceId, this.propagation, this.priority);
	}

	/**
	 * Returns a copy with another propagation.
	 * @param value the propagation
	 * @return the new attributes
	 */
	public OffloadAttributes withPropagation(Propagation value) {
		return new OffloadAttributes(this.device, value, this.priority);
	}

	/**
	 * Returns a copy with another priority.
	 * @param value the priority
	 * @return the new attributes
	 */
	public OffloadAttributes withPriority(StreamPriority value) {
		return new OffloadAttributes(this.device, this.propagation, value);
	}

}
