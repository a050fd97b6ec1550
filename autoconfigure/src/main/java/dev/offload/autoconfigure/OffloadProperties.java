package dev.offload.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of Offload's devices, stream pools and shutdown, bound from {@code offload.*}.
 * <pre>{@code
 * offload:
 *   backend: auto
 *   stream-pool:
 *     initial-size: 32
 *     max-size: 0
 *   devices-config:
 *     "1":
 *       stream-pool:
 *         initial-size: 64
 * }</pre>
 */
@ConfigurationProperties("offload")
public class OffloadProperties {

	/**
	 * The value of {@link #getDevices() devices} that selects every device.
	 */
	public static final String ALL_DEVICES = "all";

	/**
	 * Backend that runs the work: 'auto' uses CUDA when JCuda and a usable GPU are present, else the host
	 * emulation.
	 */
	private BackendType backend = BackendType.AUTO;

	/**
	 * Devices to use: 'all', or a list of device ids.
	 */
	private List<String> devices = new ArrayList<>(List.of(ALL_DEVICES));

	/**
	 * Stream pool settings of every device.
	 */
	private final Pool streamPool = new Pool();

	/**
	 * Per-device settings, keyed by device id, such as 'offload.devices-config.1.stream-pool.initial-size'. Each
	 * setting left out is taken from the shared one, such as 'offload.stream-pool.initial-size'.
	 */
	private final Map<String, DeviceConfig> devicesConfig = new LinkedHashMap<>();

	/**
	 * Emulated devices of the host backend.
	 */
	private final Host host = new Host();

	/**
	 * Reuse of freed buffers.
	 */
	private final BufferCache bufferCache = new BufferCache();

	/**
	 * Behaviour when the application shuts down.
	 */
	private final Shutdown shutdown = new Shutdown();

	/**
	 * How device state shows in the application's health probes.
	 */
	private final Health health = new Health();

	/**
	 * Time a session may stay open before it is reported as a possible leak. Leak detection is off when unset.
	 */
	private Duration leakDetectionThreshold;

	public BackendType getBackend() {
		return this.backend;
	}

	public void setBackend(BackendType backend) {
		this.backend = backend;
	}

	public List<String> getDevices() {
		return this.devices;
	}

	public void setDevices(List<String> devices) {
		this.devices = devices;
	}

	public Pool getStreamPool() {
		return this.streamPool;
	}

	public Map<String, DeviceConfig> getDevicesConfig() {
		return this.devicesConfig;
	}

	public Host getHost() {
		return this.host;
	}

	public BufferCache getBufferCache() {
		return this.bufferCache;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	public Health getHealth() {
		return this.health;
	}

	public Duration getLeakDetectionThreshold() {
		return this.leakDetectionThreshold;
	}

	public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
		this.leakDetectionThreshold = leakDetectionThreshold;
	}

	/**
	 * The backends that {@code offload.backend} names.
	 */
	public enum BackendType {

		/**
		 * CUDA when JCuda is on the classpath and a GPU is usable, else the host emulation.
		 */
		AUTO,

		/**
		 * NVIDIA GPUs through JCuda; startup fails when none is usable.
		 */
		CUDA,

		/**
		 * Devices emulated on the CPU.
		 */
		HOST

	}

	/**
	 * Stream pool settings shared by every device.
	 */
	public static class Pool {

		/**
		 * Number of streams created for a priority class on its first borrow. The pool doubles from there when
		 * every stream is lent.
		 */
		private int initialSize = 32;

		/**
		 * Maximum number of streams a device's pool holds in all, or 0 for no bound.
		 */
		private int maxSize = 0;

		/**
		 * Maximum time a borrow waits for a stream when a bounded pool is full.
		 */
		private Duration borrowTimeout = Duration.ofSeconds(30);

		public int getInitialSize() {
			return this.initialSize;
		}

		public void setInitialSize(int initialSize) {
			this.initialSize = initialSize;
		}

		public int getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(int maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getBorrowTimeout() {
			return this.borrowTimeout;
		}

		public void setBorrowTimeout(Duration borrowTimeout) {
			this.borrowTimeout = borrowTimeout;
		}

	}

	/**
	 * Settings of one device, each overriding the shared one when set.
	 */
	public static class DeviceConfig {

		/**
		 * Stream pool settings of this device.
		 */
		private final PoolOverride streamPool = new PoolOverride();

		public PoolOverride getStreamPool() {
			return this.streamPool;
		}

	}

	/**
	 * Stream pool settings of one device; {@code null} means the shared setting.
	 */
	public static class PoolOverride {

		/**
		 * Number of streams created for a priority class on its first borrow.
		 */
		private Integer initialSize;

		/**
		 * Maximum number of streams this device's pool holds in all, or 0 for no bound.
		 */
		private Integer maxSize;

		/**
		 * Maximum time a borrow waits for a stream when this device's bounded pool is full.
		 */
		private Duration borrowTimeout;

		public Integer getInitialSize() {
			return this.initialSize;
		}

		public void setInitialSize(Integer initialSize) {
			this.initialSize = initialSize;
		}

		public Integer getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(Integer maxSize) {
			this.maxSize = maxSize;
		}

		public Duration getBorrowTimeout() {
			return this.borrowTimeout;
		}

		public void setBorrowTimeout(Duration borrowTimeout) {
			this.borrowTimeout = borrowTimeout;
		}

	}

	/**
	 * Settings of the host backend's emulated devices.
	 */
	public static class Host {

		/**
		 * Number of devices the host backend emulates.
		 */
		private int deviceCount = 1;

		/**
		 * Names of the emulated devices, one per device. Default: 'Host device N'.
		 */
		private List<String> deviceNames = new ArrayList<>();

		/**
		 * Number of worker threads per emulated device, which bounds how many of its streams run at once. Default:
		 * one per available processor, at least 2.
		 */
		private Integer workersPerDevice;

		/**
		 * Memory each emulated device reports. Default: the JVM's maximum heap size.
		 */
		private DataSize memory;

		public int getDeviceCount() {
			return this.deviceCount;
		}

		public void setDeviceCount(int deviceCount) {
			this.deviceCount = deviceCount;
		}

		public List<String> getDeviceNames() {
			return this.deviceNames;
		}

		public void setDeviceNames(List<String> deviceNames) {
			this.deviceNames = deviceNames;
		}

		public Integer getWorkersPerDevice() {
			return this.workersPerDevice;
		}

		public void setWorkersPerDevice(Integer workersPerDevice) {
			this.workersPerDevice = workersPerDevice;
		}

		public DataSize getMemory() {
			return this.memory;
		}

		public void setMemory(DataSize memory) {
			this.memory = memory;
		}

	}

	/**
	 * Settings of each device's cache of freed buffers.
	 */
	public static class BufferCache {

		/**
		 * Maximum memory of freed buffers that a device keeps for reuse, or 0 to free them at once.
		 */
		private DataSize maxSize = DataSize.ofMegabytes(256);

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

	}

	/**
	 * Settings of the orderly shutdown.
	 */
	public static class Shutdown {

		/**
		 * Maximum time shutdown waits for sessions in flight to give their streams back before the devices are
		 * released. Streams still lent after it are never destroyed.
		 */
		private Duration awaitTermination = Duration.ofSeconds(10);

		public Duration getAwaitTermination() {
			return this.awaitTermination;
		}

		public void setAwaitTermination(Duration awaitTermination) {
			this.awaitTermination = awaitTermination;
		}

	}

	/**
	 * Settings of how device state shows in the application's health probes.
	 */
	public static class Health {

		/**
		 * When the readiness probe refuses traffic because of the devices.
		 */
		private final Readiness readiness = new Readiness();

		public Readiness getReadiness() {
			return this.readiness;
		}

	}

	/**
	 * Settings of the readiness probe ('/actuator/health/readiness'). The liveness probe never changes for device
	 * reasons: a restart is the operator's call.
	 */
	public static class Readiness {

		/**
		 * Whether the readiness probe refuses traffic once a device failed with a sticky error. The device only comes
		 * back when the process restarts.
		 */
		private boolean onDeviceFailure = true;

		/**
		 * Whether the readiness probe refuses traffic while a device's stream pool is saturated (borrowers wait for a
		 * stream of a full bounded pool).
		 */
		private boolean onSaturation = false;

		public boolean isOnDeviceFailure() {
			return this.onDeviceFailure;
		}

		public void setOnDeviceFailure(boolean onDeviceFailure) {
			this.onDeviceFailure = onDeviceFailure;
		}

		public boolean isOnSaturation() {
			return this.onSaturation;
		}

		public void setOnSaturation(boolean onSaturation) {
			this.onSaturation = onSaturation;
		}

	}

}
