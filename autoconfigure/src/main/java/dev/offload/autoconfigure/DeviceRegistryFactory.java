package dev.offload.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

import dev.offload.DeviceRegistry;
import dev.offload.InvalidSettingException;
import dev.offload.MemoryConfig;
import dev.offload.NoSuchDeviceException;
import dev.offload.OffloadListener;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.TenantPolicy;
import dev.offload.TenantPolicy.TenantShare;
import dev.offload.autoconfigure.OffloadProperties.DeviceConfig;
import dev.offload.autoconfigure.OffloadProperties.Lane;
import dev.offload.autoconfigure.OffloadProperties.Pool;
import dev.offload.autoconfigure.OffloadProperties.PoolOverride;
import dev.offload.autoconfigure.OffloadProperties.Tenants;
import dev.offload.spi.Backend;

/**
 * Builds the {@link DeviceRegistry} from {@link OffloadProperties}, turning what core
 * rejects into an {@link InvalidOffloadConfigurationException} that names the property
 * (by the setting core names, never by its message text).
 */
final class DeviceRegistryFactory {

	private static final String STREAM_POOL = "offload.stream-pool.";

	private static final String DEVICES = "offload.devices";

	private static final String DEVICES_CONFIG = "offload.devices-config.";

	private static final String ASYNC_EXECUTOR = "offload.async.executor";

	private static final String TENANTS = "offload.tenants.";

	private final OffloadProperties properties;

	private final SettingErrors errors;

	/**
	 * Creates a factory.
	 * @param properties the configuration
	 * @param environment where it was bound from, to report values as typed; or
	 * {@code null}
	 */
	DeviceRegistryFactory(OffloadProperties properties, Environment environment) {
		this.properties = properties;
		this.errors = new SettingErrors(environment);
	}

	/**
	 * Builds the registry.
	 * @param backend the backend
	 * @param listener the listener of every device
	 * @param beans where the executor that {@code offload.async.executor} names is looked
	 * up
	 * @return the registry
	 * @throws InvalidOffloadConfigurationException naming the first invalid property
	 */
	DeviceRegistry create(Backend backend, OffloadListener listener, BeanFactory beans) {
		List<Integer> ids = deviceIds(this.properties, this.errors);
		DeviceRegistry.Builder builder = DeviceRegistry.builder(backend)
			.deviceIds(ids)
			.streamPool(sharedPoolConfig())
			.listener(listener)
			.watchGpuFaults(this.properties.getHealth().getNvml().isEnabled());
		String executor = this.properties.getAsync().getExecutor();
		if (StringUtils.hasText(executor)) {
			builder.completionExecutor(completionExecutor(beans, executor.trim()));
		}
		perDevicePoolConfigs().forEach(builder::streamPool);
		DataSize bufferCache = this.properties.getBufferCache().getMaxSize();
		this.errors.check("offload.buffer-cache.max-size", bufferCache,
				"Set 'offload.buffer-cache.max-size' to 0B (no cache) or more, such as 256MB.",
				() -> builder.bufferCacheMaxBytes(bufferCache.toBytes()));
		String budget = this.properties.getMemory().getBudget();
		this.errors.check("offload.memory.budget", budget,
				"Set 'offload.memory.budget' to bytes such as 8GB, a share of each device such as 80%, or unlimited.",
				() -> builder.memory(memoryConfig(budget)));
		Duration await = this.properties.getShutdown().getAwaitTermination();
		this.errors.check("offload.shutdown.await-termination", await,
				"Set 'offload.shutdown.await-termination' to 0s or more, such as 10s.",
				() -> builder.awaitTermination(await));
		builder.tenants(tenantPolicy(this.properties.getTenants()));
		Duration sessionTimeout = this.properties.getSession().getTimeout();
		this.errors.check("offload.session.timeout", sessionTimeout,
				"Set 'offload.session.timeout' to a positive duration, such as 5s, or leave it unset for no timeout.",
				() -> builder.sessionTimeout(sessionTimeout));
		try {
			return builder.build();
		}
		catch (NoSuchDeviceException ex) {
			throw noSuchDevice(ex, ids);
		}
	}

	/**
	 * Builds the tenant policy of {@code offload.tenants.*}.
	 * @throws InvalidOffloadConfigurationException naming the first invalid property
	 */
	private TenantPolicy tenantPolicy(Tenants tenants) {
		Map<String, TenantShare> shares = new LinkedHashMap<>();
		tenants.getShares().forEach((tenant, share) -> {
			String prefix = TENANTS + "shares." + tenant + ".";
			DataSize maxMemory = share.getMaxMemory();
			try {
				shares.put(tenant, new TenantShare(share.getWeight(), share.getMaxStreams(),
						(maxMemory != null) ? maxMemory.toBytes() : 0));
			}
			catch (InvalidSettingException ex) {
				Object value = switch (ex.getSetting()) {
					case "weight" -> share.getWeight();
					case "max-streams" -> share.getMaxStreams();
					default -> maxMemory;
				};
				throw this.errors.invalid(prefix + ex.getSetting(), value, ex.getMessage(),
						"Set '" + prefix + ex.getSetting() + "' within its bounds (weight 1 to "
								+ TenantPolicy.MAX_WEIGHT + ", max-streams and max-memory 0 or more).",
						ex);
			}
		});
		try {
			return new TenantPolicy(tenants.getDefaultWeight(), shares, tenants.getMaxTracked());
		}
		catch (InvalidSettingException ex) {
			if ("tenants.default-weight".equals(ex.getSetting())) {
				throw this.errors.invalid(TENANTS + "default-weight", tenants.getDefaultWeight(), ex.getMessage(),
						"Set '" + TENANTS + "default-weight' from 1 to " + TenantPolicy.MAX_WEIGHT + ".", ex);
			}
			if ("tenants.max-tracked".equals(ex.getSetting())) {
				throw this.errors.invalid(TENANTS + "max-tracked", tenants.getMaxTracked(), ex.getMessage(),
						"Set '" + TENANTS + "max-tracked' to at least 1 and at least the number of tenants '" + TENANTS
								+ "shares' names.",
						ex);
			}
			throw this.errors.invalid(TENANTS + "shares", shares.keySet(), ex.getMessage(),
					"Key '" + TENANTS + "shares' by tenant ids: 1 to " + TenantPolicy.MAX_TENANT_LENGTH
							+ " characters of letters, digits and . _ : @ - (an id with '.' in brackets).",
					ex);
		}
	}

	/**
	 * Reads a budget: bytes ({@code 8GB}), a share ({@code 80%}) or {@code unlimited}.
	 * @throws IllegalArgumentException if it is none of them
	 */
	static MemoryConfig memoryConfig(String budget) {
		String value = (budget != null) ? budget.trim() : "";
		if (value.equalsIgnoreCase("unlimited")) {
			return MemoryConfig.UNLIMITED;
		}
		if (value.endsWith("%")) {
			try {
				return MemoryConfig.ofPercent(Integer.parseInt(value.substring(0, value.length() - 1).trim()));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(
						"memory.budget must be a whole percentage such as 80%, was " + value);
			}
		}
		return MemoryConfig.ofBytes(DataSize.parse(value).toBytes());
	}

	private Executor completionExecutor(BeanFactory beans, String name) {
		String action = "Define an Executor or TaskExecutor bean named '" + name
				+ "', or leave 'offload.async.executor' "
				+ "unset to complete asynchronous work on Offload's own executor.";
		try {
			return beans.getBean(name, Executor.class);
		}
		catch (BeanNotOfRequiredTypeException ex) {
			throw this.errors.invalid(ASYNC_EXECUTOR, name,
					"bean '" + name + "' is a " + ex.getActualType().getName() + ", not an Executor", action, ex);
		}
		catch (NoSuchBeanDefinitionException ex) {
			// Not chained: Spring Boot's analysis of a missing bean would win over this
			// one and name an injection point instead of the property.
			throw this.errors.invalid(ASYNC_EXECUTOR, name, "there is no bean named '" + name + "'", action, null);
		}
	}

	private InvalidOffloadConfigurationException noSuchDevice(NoSuchDeviceException ex, @Nullable List<Integer> ids) {
		if (ids != null && ids.contains(ex.getDeviceId())) {
			return this.errors.invalid(DEVICES, this.properties.getDevices(),
					"device " + ex.getDeviceId() + " does not exist; the backend's devices are " + ex.getAvailableIds(),
					"List only existing device ids in '" + DEVICES + "' (" + ex.getAvailableIds()
							+ "), or set it to 'all'.",
					ex);
		}
		String key = devicesConfigKey(ex.getDeviceId());
		String action = (ids != null)
				? "Remove '" + DEVICES_CONFIG + key + "', or add device " + ex.getDeviceId() + " to '" + DEVICES + "'."
				: "Remove '" + DEVICES_CONFIG + key + "', or configure one of the devices " + ex.getAvailableIds()
						+ ".";
		return this.errors.invalid(DEVICES_CONFIG + key, ex.getDeviceId(),
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
	 * @param errors how to report an entry that is not an id
	 * @return the ids, or {@code null} for all devices
	 * @throws InvalidOffloadConfigurationException if an entry is neither {@code all} nor
	 * an id
	 */
	static @Nullable List<Integer> deviceIds(OffloadProperties properties, SettingErrors errors) {
		List<String> devices = properties.getDevices();
		if (devices == null || devices.isEmpty()
				|| (devices.size() == 1 && OffloadProperties.ALL_DEVICES.equalsIgnoreCase(devices.get(0).trim()))) {
			return null;
		}
		List<Integer> ids = new ArrayList<>();
		String action = "Set '" + DEVICES + "' to 'all' or to a list of device ids, " + "such as 0,1.";
		for (String device : devices) {
			int id = parseId(errors, DEVICES, devices, device, action);
			if (ids.contains(id)) {
				throw errors.invalid(DEVICES, devices, "device " + id + " is listed twice", action, null);
			}
			ids.add(id);
		}
		return ids;
	}

	private static int parseId(SettingErrors errors, String property, Object value, String id, String action) {
		try {
			int parsed = Integer.parseInt(id.trim());
			if (parsed >= 0) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// Reported below.
		}
		throw errors.invalid(property, value, "'" + id + "' is not a device id (a number from 0)", action, null);
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
			int id = parseId(this.errors, DEVICES_CONFIG + entry.getKey(), entry.getKey(), entry.getKey(),
					"Key each entry of 'offload.devices-config' by a device id, such as "
							+ "'offload.devices-config.1.stream-pool.initial-size'.");
			PoolOverride override = entry.getValue().getStreamPool();
			configs.put(id,
					poolConfig(or(override.getInitialSize(), shared.getInitialSize()),
							(override.getInitialSize() != null) ? prefix : STREAM_POOL,
							or(override.getMaxSize(), shared.getMaxSize()),
							(override.getMaxSize() != null) ? prefix : STREAM_POOL,
							or(override.getBorrowTimeout(), shared.getBorrowTimeout()),
							(override.getBorrowTimeout() != null) ? prefix : STREAM_POOL));
		}
		return configs;
	}

	private static <T> T or(@Nullable T value, T fallback) {
		return (value != null) ? value : fallback;
	}

	/**
	 * Builds a pool configuration; each prefix says where its value came from, to name
	 * the property at fault.
	 */
	private StreamPoolConfig poolConfig(int initialSize, String initialFrom, int maxSize, String maxFrom,
			Duration borrowTimeout, String timeoutFrom) {
		StreamPoolConfig config = poolConfigWithoutLanes(initialSize, initialFrom, maxSize, maxFrom, borrowTimeout,
				timeoutFrom);
		for (Map.Entry<StreamPriority, Lane> entry : this.properties.getStreamPool().getLanes().entrySet()) {
			String prefix = STREAM_POOL + "lanes." + entry.getKey().name().toLowerCase(Locale.ROOT) + ".";
			Lane lane = entry.getValue();
			if (lane.getMaxSessions() == null) {
				throw this.errors.invalid(prefix + "max-sessions", null, "a lane needs its maximum number of sessions",
						"Set '" + prefix + "max-sessions' to 1 or more, or remove the lane.", null);
			}
			try {
				config = config.withLane(entry.getKey(), lane.getMaxSessions(), lane.getBorrowTimeout());
			}
			catch (InvalidSettingException ex) {
				String message = ex.getMessage();
				if (ex.getSetting().endsWith("borrowTimeout")) {
					throw this.errors.invalid(prefix + "borrow-timeout", lane.getBorrowTimeout(), message,
							"Set '" + prefix + "borrow-timeout' to a positive duration, such as 2s.", ex);
				}
				throw this.errors.invalid(prefix + "max-sessions", lane.getMaxSessions(), message,
						"Set '" + prefix + "max-sessions' to 1 or more, and at most '" + maxFrom + "max-size' ("
								+ maxSize + ") when the pool is bounded.",
						ex);
			}
		}
		return config;
	}

	private StreamPoolConfig poolConfigWithoutLanes(int initialSize, String initialFrom, int maxSize, String maxFrom,
			Duration borrowTimeout, String timeoutFrom) {
		String initialProperty = initialFrom + "initial-size";
		String maxProperty = maxFrom + "max-size";
		String timeoutProperty = timeoutFrom + "borrow-timeout";
		if (borrowTimeout == null) {
			throw this.errors.invalid(timeoutProperty, null, "a borrow timeout is required",
					"Set '" + timeoutProperty + "' to a positive duration, such as 30s.", null);
		}
		try {
			return new StreamPoolConfig(initialSize, maxSize, borrowTimeout);
		}
		catch (InvalidSettingException ex) {
			throw switch (ex.getSetting()) {
				case "initialSize" -> this.errors.invalid(initialProperty, initialSize, ex.getMessage(),
						"Set '" + initialProperty + "' to 1 or more.", ex);
				case "borrowTimeout" -> this.errors.invalid(timeoutProperty, borrowTimeout, ex.getMessage(),
						"Set '" + timeoutProperty + "' to a positive duration, such as 30s.", ex);
				default ->
					this.errors.invalid(maxProperty, maxSize, ex.getMessage(),
							"Set '" + maxProperty + "' to 0 for a pool without bound, or to at least '"
									+ initialProperty + "' (" + initialSize + "); or lower '" + initialProperty + "'.",
							ex);
			};
		}
	}

}
