package dev.offload.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.util.unit.DataSize;

import dev.offload.DeviceRegistry;
import dev.offload.NoSuchDeviceException;
import dev.offload.OffloadListener;
import dev.offload.StreamPoolConfig;
import dev.offload.autoconfigure.OffloadProperties.DeviceConfig;
import dev.offload.autoconfigure.OffloadProperties.Pool;
import dev.offload.autoconfigure.OffloadProperties.PoolOverride;
import dev.offload.autoconfigure.diagnostics.InvalidOffloadConfigurationException;
import dev.offload.spi.Backend;

/**
 * Builds the {@link DeviceRegistry} from {@link OffloadProperties}, turning what core rejects into an
 * {@link InvalidOffloadConfigurationException} that names the property.
 */
final class DeviceRegistryFactory {

	private static final String STREAM_POOL = "offload.stream-pool.";

	private static final String DEVICES = "offload.devices";

	private static final String DEVICES_CONFIG = "offload.devices-config.";

	private final OffloadProperties properties;

	DeviceRegistryFactory(OffloadProperties properties) {
		this.properties = properties;
	}

	/**
	 * Builds the registry.
	 * @param backend the backend
	 * @param listener the listener of every device
	 * @return the registry
	 * @throws InvalidOffloadConfigurationException naming the first invalid property
	 */
	DeviceRegistry create(Backend backend, OffloadListener listener) {
		List<Integer> ids = deviceIds(this.properties);
		DeviceRegistry.Builder builder = DeviceRegistry.builder(backend)
			.deviceIds(ids)
			.streamPool(sharedPoolConfig())
			.listener(listener);
		perDevicePoolConfigs().forEach(builder::streamPool);
		DataSize bufferCache = this.properties.getBufferCache().getMaxSize();
		check("offload.buffer-cache.max-size", bufferCache, "Set 'offload.buffer-cache.max-size' to 0B (no cache) or "
				+ "more, such as 256MB.", () -> builder.bufferCacheMaxBytes(bufferCache.toBytes()));
		Duration await = this.properties.getShutdown().getAwaitTermination();
		check("offload.shutdown.await-termination", await, "Set 'offload.shutdown.await-termination' to 0s or more, "
				+ "such as 10s.", () -> builder.awaitTermination(await));
		try {
			return builder.build();
		}
		catch (NoSuchDeviceException ex) {
			throw noSuchDevice(ex, ids);
		}
	}

	private InvalidOffloadConfigurationException noSuchDevice(NoSuchDeviceException ex, List<Integer> ids) {
		if (ids != null && ids.contains(ex.getDeviceId())) {
			return new InvalidOffloadConfigurationException(DEVICES, this.properties.getDevices(),
					"device " + ex.getDeviceId() + " does not exist; the backend's devices are "
							+ ex.getAvailableIds(),
					"List only existing device ids in '" + DEVICES + "' (" + ex.getAvailableIds()
							+ "), or set it to 'all'.",
					ex);
		}
		String key = devicesConfigKey(ex.getDeviceId());
		String action = (ids != null)
				? "Remove '" + DEVICES_CONFIG + key + "', or add device " + ex.getDeviceId() + " to '" + DEVICES + "'."
				: "Remove '" + DEVICES_CONFIG + key + "', or configure one of the devices " + ex.getAvailableIds() + ".";
		return new InvalidOffloadConfigurationException(DEVICES_CONFIG + key, ex.getDeviceId(),
				"there is no device " + ex.getDeviceId() + " among the devices in use " + ex.getAvailableIds(), action,
				ex);
	}

	private String devicesConfigKey(int id) {
		for (String key : this.properties.getDevicesConfig().keySet()) {
			if (key.trim().equals(String.valueOf(id))) {
				return key;
			}
		}
		return String.valueOf(id);
	}

	/**
	 * Returns the device ids that {@code offload.devices} lists.
	 * @param properties the configuration
	 * @return the ids, or {@code null} for all devices
	 * @throws InvalidOffloadConfigurationException if an entry is neither {@code all} nor an id
	 */
	static List<Integer> deviceIds(OffloadProperties properties) {
		List<String> devices = properties.getDevices();
		if (devices == null || devices.isEmpty()
				|| (devices.size() == 1 && OffloadProperties.ALL_DEVICES.equalsIgnoreCase(devices.get(0).trim()))) {
			return null;
		}
		List<Integer> ids = new ArrayList<>();
		for (String device : devices) {
			ids.add(parseId(DEVICES, devices, device, "Set '" + DEVICES + "' to 'all' or to a list of device ids, "
					+ "such as 0,1."));
		}
		return ids;
	}

	private static int parseId(String property, Object value, String id, String action) {
		try {
			int parsed = Integer.parseInt(id.trim());
			if (parsed >= 0) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// Reported below.
		}
		throw new InvalidOffloadConfigurationException(property, value,
				"'" + id + "' is not a device id (a number from 0)", action, null);
	}

	private StreamPoolConfig sharedPoolConfig() {
		Pool pool = this.properties.getStreamPool();
		return poolConfig(pool.getInitialSize(), STREAM_POOL, pool.getMaxSize(), STREAM_POOL, pool.getBorrowTimeout(),
				STREAM_POOL);
	}

	private Map<Integer, StreamPoolConfig> perDevicePoolConfigs() {
		Pool shared = this.properties.getStreamPool();
		Map<Integer, StreamPoolConfig> configs = new LinkedHashMap<>();
		for (Map.Entry<String, DeviceConfig> entry : this.properties.getDevicesConfig().entrySet()) {
			String prefix = DEVICES_CONFIG + entry.getKey() + ".stream-pool.";
			int id = parseId(DEVICES_CONFIG + entry.getKey(), entry.getKey(), entry.getKey(),
					"Key each entry of 'offload.devices-config' by a device id, such as "
							+ "'offload.devices-config.1.stream-pool.initial-size'.");
			PoolOverride override = entry.getValue().getStreamPool();
			configs.put(id, poolConfig(
					or(override.getInitialSize(), shared.getInitialSize()),
					(override.getInitialSize() != null) ? prefix : STREAM_POOL,
					or(override.getMaxSize(), shared.getMaxSize()),
					(override.getMaxSize() != null) ? prefix : STREAM_POOL,
					or(override.getBorrowTimeout(), shared.getBorrowTimeout()),
					(override.getBorrowTimeout() != null) ? prefix : STREAM_POOL));
		}
		return configs;
	}

	private static <T> T or(T value, T fallback) {
		return (value != null) ? value : fallback;
	}

	/**
	 * Builds a pool configuration; each prefix says where its value came from, to name the property at fault.
	 */
	private static StreamPoolConfig poolConfig(int initialSize, String initialFrom, int maxSize, String maxFrom,
			Duration borrowTimeout, String timeoutFrom) {
		String initialProperty = initialFrom + "initial-size";
		String maxProperty = maxFrom + "max-size";
		String timeoutProperty = timeoutFrom + "borrow-timeout";
		if (borrowTimeout == null) {
			throw new InvalidOffloadConfigurationException(timeoutProperty, null, "a borrow timeout is required",
					"Set '" + timeoutProperty + "' to a positive duration, such as 30s.", null);
		}
		try {
			return new StreamPoolConfig(initialSize, maxSize, borrowTimeout);
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			if (message.startsWith("initialSize")) {
				throw new InvalidOffloadConfigurationException(initialProperty, initialSize, message,
						"Set '" + initialProperty + "' to 1 or more.", ex);
			}
			if (message.startsWith("borrowTimeout")) {
				throw new InvalidOffloadConfigurationException(timeoutProperty, borrowTimeout, message,
						"Set '" + timeoutProperty + "' to a positive duration, such as 30s.", ex);
			}
			throw new InvalidOffloadConfigurationException(maxProperty, maxSize, message,
					"Set '" + maxProperty + "' to 0 for a pool without bound, or to at least '" + initialProperty
							+ "' (" + initialSize + "); or lower '" + initialProperty + "'.",
					ex);
		}
	}

	private static void check(String property, Object value, String action, Runnable call) {
		try {
			call.run();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOffloadConfigurationException(property, value, ex.getMessage(), action, ex);
		}
	}

}
