package dev.offload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The stream pools of a {@link DeviceRegistry}'s devices by device id, for code that
 * watches one device's pool: {@code pools.get(1)} instead of a bean name spelled by hand.
 * The pools are read-only views; the registry owns them.
 */
public final class StreamPools {

	private final DeviceRegistry registry;

	/**
	 * Creates the view of a registry's pools.
	 * @param registry the registry
	 */
	public StreamPools(DeviceRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	/**
	 * Returns the pool of a device.
	 * @param deviceId the device's id
	 * @return the pool
	 * @throws NoSuchDeviceException if the registry has no such device (the message lists
	 * the ids)
	 */
	public StreamPool get(int deviceId) {
		return this.registry.device(deviceId).streamPool();
	}

	/**
	 * Returns the ids of the devices, in order.
	 * @return the ids
	 */
	public List<Integer> ids() {
		return this.registry.ids();
	}

	/**
	 * Returns every pool by device id, in the order of the ids.
	 * @return an unmodifiable map
	 */
	public Map<Integer, StreamPool> asMap() {
		Map<Integer, StreamPool> pools = new LinkedHashMap<>();
		for (Device device : this.registry.devices()) {
			pools.put(device.id(), device.streamPool());
		}
		return Collections.unmodifiableMap(pools);
	}

	@Override
	public String toString() {
		return "StreamPools" + ids();
	}

}
