package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.SessionDeadline;
import dev.offload.internal.health.GpuFaultWatcher;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuSharing;

/**
 * The devices of one {@link Backend}, each with its own {@link StreamPool}: lookup by id,
 * least-busy selection, and an orderly shutdown. <pre>{@code
 * try (DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().build()).build();
 *      OffloadSession session = registry.openSession()) {
 *     ...
 * }
 * }</pre>
 */
public final class DeviceRegistry implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(DeviceRegistry.class);

	/**
	 * The default bound of each device's buffer cache: 256 MiB.
	 */
	public static final long DEFAULT_BUFFER_CACHE_BYTES = 256L * 1024 * 1024;

	/**
	 * The default time {@link #close()} waits for lent streams.
	 */
	public static final Duration DEFAULT_AWAIT_TERMINATION = Duration.ofSeconds(10);

	private final Backend backend;

	private final List<Device> devices;

	private final Map<Integer, Device> byId;

	private final Duration awaitTermination;

	private final Executor completionExecutor;

	private final GpuFaultWatcher gpuFaultWatcher;

	private final TenantPolicy tenantPolicy;

	/**
	 * A budget below which a device can hold few buffers: 1 MiB, two thousand of the
	 * smallest.
	 */
	private static final long SMALLEST_USEFUL_BUDGET = 1L << 20;

	private volatile boolean closed;

	/** The first close's answer; read and written under {@link #closeLock}. */
	private boolean closedCleanly;

	private final ReentrantLock closeLock = new ReentrantLock();

	/**
	 * Work queued over the devices (batchers), drained before the devices stop lending.
	 */
	private final RegistryDrainables drainables = new RegistryDrainables();

	private DeviceRegistry(Builder builder, List<Device> devices) {
		this.backend = builder.backend;
		this.devices = List.copyOf(devices);
		Map<Integer, Device> map = new HashMap<>();
		devices.forEach((device) -> map.put(device.id(), device));
		this.byId = map;
		this.awaitTermination = builder.awaitTermination;
		this.tenantPolicy = builder.tenants;
		// build() chose the default executor when none was given.
		this.completionExecutor = Objects.requireNonNull(builder.completionExecutor);
		this.gpuFaultWatcher = GpuFaultWatcher.start(this.backend,
				this.devices.stream().map(Device::backendDevice).toList(), builder.watchGpuFaults,
				(fault) -> Objects.requireNonNull(map.get(fault.deviceId())).gpuFaultReported(fault));
	}

	/**
	 * Returns the shared default {@linkplain Builder#completionExecutor completion
	 * executor}: a fork/join pool of daemon threads named {@code offload-async-N}, one
	 * per CPU (at least 2), apart from the common pool. A continuation that waits for
	 * another future with {@code join()} or {@code get()} makes the pool start a spare
	 * thread, so the completion it waits for still runs; a plain bounded pool whose
	 * threads all wait on Offload futures would queue those completions behind them for
	 * ever.
	 * @return the executor, created on first use
	 */
	public static Executor defaultCompletionExecutor() {
		return DefaultCompletionExecutor.INSTANCE;
	}

	/**
	 * Starts building a registry over {@code backend}.
	 * @param backend the backend whose devices to use
	 * @return a builder
	 */
	public static Builder builder(Backend backend) {
		return new Builder(backend);
	}

	/**
	 * Returns the backend.
	 * @return the backend
	 */
	public Backend backend() {
		return this.backend;
	}

	/**
	 * Returns the devices, in id order.
	 * @return the devices
	 */
	public List<Device> devices() {
		return this.devices;
	}

	/**
	 * Returns the ids of the devices.
	 * @return the ids, in order
	 */
	public List<Integer> ids() {
		return this.devices.stream().map(Device::id).toList();
	}

	/**
	 * Returns a device by id.
	 * @param id the device's id
	 * @return the device
	 * @throws NoSuchDeviceException naming the ids that exist
	 */
	public Device device(int id) {
		Device device = this.byId.get(id);
		if (device == null) {
			throw new NoSuchDeviceException(id, ids());
		}
		return device;
	}

	/**
	 * Returns the healthy device with the fewest active sessions and waiting borrowers
	 * (the lowest id on a tie).
	 * @return the device
	 * @throws DeviceFailedException if every device has failed
	 */
	public Device leastBusy() {
		return DeviceSelection.leastBusy(this.devices);
	}

	/**
	 * Opens a session on the {@link #leastBusy() least busy} device.
	 * @return the session, which the caller must close
	 */
	public OffloadSession openSession() {
		return leastBusy().openSession();
	}

	/**
	 * Opens a session on a device.
	 * @param deviceId the device's id
	 * @return the session, which the caller must close
	 */
	public OffloadSession openSession(int deviceId) {
		return device(deviceId).openSession();
	}

	/**
	 * Opens a session as {@code options} say: on a device (or the least busy one), with a
	 * stream priority, a timeout that bounds its caller's waits, and a tenant whose share
	 * ({@link #tenantPolicy()}) its waits are served by. With a memory estimate, the
	 * session reserves it in the device's budget before it is returned, waiting under its
	 * priority and deadline.
	 * @param options the device, priority, timeout and memory estimate
	 * @return the session, which the caller must close
	 * @throws NoSuchDeviceException if the options name a device the registry lacks
	 * @throws StreamPoolClosedException if the device is shut down or shutting down
	 * @throws MemoryBudgetExceededException if the budget did not admit the estimate in
	 * time (the session is closed then)
	 */
	public OffloadSession openSession(SessionOptions options) {
		if (options == null) {
			throw new IllegalArgumentException("options must not be null");
		}
		Device device = (options.device() == SessionOptions.ANY_DEVICE) ? leastBusy() : device(options.device());
		OffloadSession session = device.openSession(options.priority(), options.timeout(), options.tenant());
		if (options.memoryBytes() > 0) {
			try {
				session.reserveMemory(options.memoryBytes());
			}
			catch (RuntimeException ex) {
				session.close();
				throw ex;
			}
		}
		return session;
	}

	/**
	 * Returns how the devices' streams and memory are shared among tenants.
	 * @return the policy, {@link TenantPolicy#DEFAULTS} unless the builder set one
	 */
	public TenantPolicy tenantPolicy() {
		return this.tenantPolicy;
	}

	/**
	 * Returns the executor that completes the futures of asynchronous work, where their
	 * dependent stages run.
	 * @return the executor
	 */
	public Executor completionExecutor() {
		return this.completionExecutor;
	}

	/**
	 * Tells whether a thread ({@code offload-nvml}) watches the GPU's own fault reports
	 * (Xid errors, through NVML) for the devices: a fatal Xid fails its device as a
	 * sticky error does, a lesser one {@linkplain Device#isDegraded() degrades} it.
	 * @return {@code true} while the registry is open and the backend reports faults
	 * @see #gpuFaultWatch()
	 */
	public boolean isWatchingGpuFaults() {
		return this.gpuFaultWatcher.isWatching() && !this.closed;
	}

	/**
	 * Describes the watch of the GPU's fault reports: the source watched, or why there is
	 * none (the host backend, no NVML library, turned off).
	 * @return one line for the health details
	 */
	public String gpuFaultWatch() {
		return this.gpuFaultWatcher.description();
	}

	/**
	 * Tells whether the registry is closed.
	 * @return {@code true} after {@link #close()}
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Adds work that takes requests of its own and runs them in sessions of this
	 * registry's devices, such as a {@code Batcher}: {@link #close(Duration)} stops it
	 * taking requests and drains it before any device refuses new sessions. Work ended on
	 * its own removes itself ({@link #removeDrainable}).
	 * @param drainable the work
	 * @return {@code true} if added; {@code false} if the registry is closed or closing,
	 * when the work should refuse its requests
	 */
	public boolean addDrainable(Drainable drainable) {
		Objects.requireNonNull(drainable, "drainable must not be null");
		this.drainables.add(drainable);
		// Added, then the flag read; close writes the flag, then reads the list: either
		// this sees the registry closing or the close sees the work (or both, and the
		// work is told twice to stop, which it ignores).
		if (this.closed) {
			this.drainables.remove(drainable);
			return false;
		}
		return true;
	}

	/**
	 * Removes work added with {@link #addDrainable}, once it has ended.
	 * @param drainable the work
	 */
	public void removeDrainable(Drainable drainable) {
		this.drainables.remove(drainable);
	}

	/**
	 * Returns how long {@link #close()} waits for the work in flight, as the builder set
	 * it.
	 * @return the await-termination time
	 */
	public Duration awaitTermination() {
		return this.awaitTermination;
	}

	/**
	 * Shuts down with the configured await-termination time: see
	 * {@link #close(Duration)}.
	 */
	@Override
	public void close() {
		close(this.awaitTermination);
	}

	/**
	 * Stops the {@linkplain #addDrainable drainable work} (batchers) taking requests and
	 * lets it run what it accepted while the devices still lend; then refuses new
	 * sessions on every device, waits for the open sessions to end (they may still borrow
	 * streams meanwhile), stops lending, destroys the streams and releases the devices.
	 * The drain and the wait share {@code awaitTermination}; requests still queued when
	 * it ends are failed by their work (a batcher's with a
	 * {@code BatcherClosedException}). Sessions still waiting on a completion thread when
	 * the time is up have their futures failed with a {@link StreamPoolClosedException}.
	 * A stream still lent is never destroyed; its device's context is then kept, and the
	 * backend stays open. Closing again changes nothing and answers as the first close
	 * did.
	 * @param awaitTermination how long to wait in all
	 * @return {@code true} if every queued request was run and everything was released
	 */
	public boolean close(Duration awaitTermination) {
		// A lock, not a monitor: closing waits for sessions, and a virtual thread must
		// not wait holding a monitor.
		this.closeLock.lock();
		try {
			return closeDevices(awaitTermination);
		}
		finally {
			this.closeLock.unlock();
		}
	}

	private boolean closeDevices(Duration awaitTermination) {
		if (this.closed) {
			return this.closedCleanly;
		}
		this.closed = true;
		this.gpuFaultWatcher.close();
		long deadline = System.nanoTime() + awaitTermination.toNanos();
		// Queued work (batchers) first, while the devices still lend: none takes a new
		// request once any is drained, and what each accepted gets its sessions.
		boolean drained = this.drainables.drain(deadline);
		// Every device refuses new sessions before any is drained, so that work does not
		// move to a device that is closed later.
		this.devices.forEach(Device::refuseNewSessions);
		long open = 0;
		for (Device device : this.devices) {
			open += device.activeSessions();
		}
		// Rounded up: a caller that spent a few microseconds of its await-termination
		// before this reads 10000 ms, not 9999.
		logger.info("Offload registry shutting down: {} session(s) open, waiting up to {} ms for them", open,
				(awaitTermination.toNanos() + 999_999) / 1_000_000);
		boolean clean = true;
		for (Device device : this.devices) {
			Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
			clean &= device.close(left);
		}
		if (clean) {
			this.backend.close();
		}
		else {
			logger.warn(
					"Offload registry closed with streams still lent or host buffers still open; the {} backend is left open",
					this.backend.name());
		}
		this.closedCleanly = clean && drained;
		return this.closedCleanly;
	}

	@Override
	public String toString() {
		return "DeviceRegistry[" + this.backend.name() + ", devices=" + ids() + "]";
	}

	/**
	 * Work over a registry's devices that takes requests of its own and runs them in
	 * sessions later, such as a {@code Batcher}'s queue: the registry's close stops every
	 * such work taking requests, then drains each, before its devices refuse new
	 * sessions.
	 */
	public interface Drainable {

		/**
		 * Refuses new requests from now on, at once and with a clear exception; the
		 * requests accepted before stay to be drained.
		 */
		void stopAccepting();

		/**
		 * Runs the requests accepted (opens their sessions) and waits up to
		 * {@code timeout} for that; those left when it ends are failed with a clear
		 * exception, so that none waits for ever. The sessions opened end on their own,
		 * within what is left of the registry's await-termination.
		 * @param timeout how long to wait, at least 0
		 * @return {@code true} if every request accepted was run
		 */
		boolean drain(Duration timeout);

	}

	/**
	 * Builds a {@link DeviceRegistry}.
	 */
	public static final class Builder {

		private final Backend backend;

		private @Nullable List<Integer> deviceIds;

		private StreamPoolConfig streamPool = StreamPoolConfig.DEFAULTS;

		private final Map<Integer, StreamPoolConfig> perDevice = new LinkedHashMap<>();

		private OffloadListener listener = OffloadListener.NONE;

		private long bufferCacheMaxBytes = DEFAULT_BUFFER_CACHE_BYTES;

		private MemoryConfig memory = MemoryConfig.DEFAULTS;

		private TenantPolicy tenants = TenantPolicy.DEFAULTS;

		private Duration awaitTermination = DEFAULT_AWAIT_TERMINATION;

		private @Nullable Executor completionExecutor;

		private @Nullable Duration sessionTimeout;

		private boolean watchGpuFaults = true;

		private Builder(Backend backend) {
			this.backend = Objects.requireNonNull(backend, "backend must not be null");
		}

		/**
		 * Uses only these devices (all by default).
		 * @param ids the device ids; {@code null} or empty for all
		 * @return this builder
		 */
		public Builder deviceIds(@Nullable Collection<Integer> ids) {
			this.deviceIds = (ids != null && !ids.isEmpty()) ? List.copyOf(ids) : null;
			return this;
		}

		/**
		 * Sets the pool configuration of every device without an override.
		 * @param config the configuration
		 * @return this builder
		 */
		public Builder streamPool(StreamPoolConfig config) {
			this.streamPool = Objects.requireNonNull(config, "config must not be null");
			return this;
		}

		/**
		 * Sets the pool configuration of one device.
		 * @param deviceId the device's id
		 * @param config the configuration
		 * @return this builder
		 */
		public Builder streamPool(int deviceId, StreamPoolConfig config) {
			this.perDevice.put(deviceId, Objects.requireNonNull(config, "config must not be null"));
			return this;
		}

		/**
		 * Sets the listener for metrics and tracing.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(OffloadListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Sets each device's memory budget: the device memory that sessions and
		 * application-owned buffers hold at once.
		 * @param config the budget; {@link MemoryConfig#DEFAULTS} (90% of each device)
		 * unless set
		 * @return this builder
		 */
		public Builder memory(MemoryConfig config) {
			if (config == null) {
				throw new InvalidSettingException("memory", "memory must not be null");
			}
			this.memory = config;
			return this;
		}

		/**
		 * Sets how each device's streams and memory are shared among tenants while
		 * callers wait for them: weights and per-tenant limits.
		 * @param policy the policy; {@link TenantPolicy#DEFAULTS} (every tenant weight 1,
		 * no limits) unless set
		 * @return this builder
		 */
		public Builder tenants(TenantPolicy policy) {
			if (policy == null) {
				throw new InvalidSettingException("tenants", "tenants must not be null");
			}
			this.tenants = policy;
			return this;
		}

		/**
		 * Bounds each device's cache of freed buffers.
		 * @param bytes the bound, at least 0
		 * @return this builder
		 */
		public Builder bufferCacheMaxBytes(long bytes) {
			if (bytes < 0) {
				throw new InvalidSettingException("bufferCacheMaxBytes",
						"bufferCacheMaxBytes must be at least 0, was " + bytes);
			}
			this.bufferCacheMaxBytes = bytes;
			return this;
		}

		/**
		 * Sets how long {@link DeviceRegistry#close()} waits for lent streams.
		 * @param timeout the time, at least 0
		 * @return this builder
		 */
		public Builder awaitTermination(Duration timeout) {
			if (timeout == null || timeout.isNegative()) {
				throw new InvalidSettingException("awaitTermination",
						"awaitTermination must be at least 0, was " + timeout);
			}
			this.awaitTermination = timeout;
			return this;
		}

		/**
		 * Sets the timeout of sessions opened without one: each caller's waits (for a
		 * stream, in {@code synchronize} and {@code close}) end by this time after the
		 * session's opening.
		 * @param timeout the timeout, positive, or {@code null} for none (the default)
		 * @return this builder
		 */
		public Builder sessionTimeout(@Nullable Duration timeout) {
			this.sessionTimeout = SessionDeadline.checked(timeout, "sessionTimeout");
			return this;
		}

		/**
		 * Sets the executor that completes the futures of
		 * {@link OffloadSession#closeAsync()}, {@link OffloadSession#whenDone()} and what
		 * is built on them (the template's {@code submit} and {@code runAsync}): their
		 * dependent stages run there, never on a device's completion thread, so a
		 * continuation that blocks cannot stop the completion of other work. The default
		 * is {@link DeviceRegistry#defaultCompletionExecutor()}. An executor bounded in
		 * threads should not run continuations that wait for other Offload futures: once
		 * all its threads wait, the completions they wait for queue behind them.
		 * @param executor the executor; it should accept work for as long as the registry
		 * is open (a completion it refuses runs on a thread of its own)
		 * @return this builder
		 */
		public Builder completionExecutor(Executor executor) {
			this.completionExecutor = Objects.requireNonNull(executor, "completionExecutor must not be null");
			return this;
		}

		/**
		 * Sets whether a thread watches the GPU's own fault reports (Xid errors, through
		 * NVML on the CUDA backends) and fails or degrades the devices they name.
		 * @param watch {@code true} (the default) to watch where the backend reports
		 * faults
		 * @return this builder
		 */
		public Builder watchGpuFaults(boolean watch) {
			this.watchGpuFaults = watch;
			return this;
		}

		/**
		 * Discovers the devices and builds the registry.
		 * @return the registry
		 * @throws NoSuchDeviceException if a configured id (devices or per-device pools)
		 * does not exist
		 */
		public DeviceRegistry build() {
			Map<Integer, BackendDevice> byId = DeviceSelection.byId(this.backend.devices());
			List<Integer> wanted = DeviceSelection.wanted(byId, this.deviceIds, this.perDevice.keySet());
			if (this.completionExecutor == null) {
				this.completionExecutor = defaultCompletionExecutor();
			}
			List<Device> devices = new ArrayList<>();
			for (Integer id : wanted.stream().distinct().sorted().toList()) {
				StreamPoolConfig config = this.perDevice.getOrDefault(id, this.streamPool);
				devices.add(new Device(this.backend.name(), this.backend.runsWorkOnHostProcessors(),
						Objects.requireNonNull(byId.get(id)), config, this.listener, this.bufferCacheMaxBytes,
						this.memory, this.completionExecutor, this.sessionTimeout, this.tenants));
			}
			logger.info("Offload uses {} device(s) of the {} backend: {}", devices.size(), this.backend.name(),
					devices);
			for (Device device : devices) {
				GpuSharing sharing = device.info().sharing();
				logger.info("GPU sharing of device {} ({}): {}{}", device.id(), device.name(), sharing,
						sharing.evidence().isEmpty() ? "" : "; from " + String.join("; ", sharing.evidence()));
				MemoryStatistics memory = device.memoryStatistics();
				logger.info("Memory budget of device {}: {}, from {}", device.id(),
						memory.isBudgeted() ? (memory.budgetBytes() >> 20) + " MiB" : "unlimited",
						memory.budgetSource());
				long deviceBytes = device.info().totalMemoryBytes();
				if (memory.isBudgeted() && deviceBytes > 0 && memory.budgetBytes() > deviceBytes) {
					logger.warn(
							"Memory budget of device {} ({} MiB) is larger than the device's memory ({} MiB): the "
									+ "device runs out before the budget refuses anything",
							device.id(), memory.budgetBytes() >> 20, deviceBytes >> 20);
				}
				else if (memory.isBudgeted() && memory.budgetBytes() < SMALLEST_USEFUL_BUDGET) {
					logger.warn(
							"Memory budget of device {} is {} bytes: every buffer takes at least 512 bytes of it, "
									+ "so the budget admits at most {} buffer(s)",
							device.id(), memory.budgetBytes(), memory.budgetBytes() / 512);
				}
			}
			return new DeviceRegistry(this, Collections.unmodifiableList(devices));
		}

	}

}
