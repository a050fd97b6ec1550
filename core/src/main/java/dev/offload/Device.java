package dev.offload;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.health.GpuFault;
import dev.offload.internal.SessionDeadline;
import dev.offload.internal.completion.Completions;
import dev.offload.internal.memory.DeviceMemory;
import dev.offload.internal.memory.MemoryCounts;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.DeviceInfo;

/**
 * One device of a {@link DeviceRegistry}: its {@link StreamPool}, memory, loaded modules
 * and completion engine. Open work on it with {@link #openSession()}.
 * <p>
 * A sticky backend error (an illegal address, a launch failure) fails the device: it
 * stops lending streams, new sessions fail fast with {@link DeviceFailedException}, and
 * the other devices go on working.
 */
public final class Device {

	private static final Logger logger = LoggerFactory.getLogger(Device.class);

	private final String backendName;

	private final BackendDevice backendDevice;

	private final DeviceInfo info;

	private final OffloadListener listener;

	private final StreamPool streamPool;

	/** The budget, the buffer cache and the page-locked staging, behind one door. */
	private final DeviceMemory memory;

	/** The completion thread, the waits, the asynchronous closes and the events. */
	private final Completions completions;

	/** The rooms wired together, as the device's sessions and buffers reach them. */
	private final SessionContext sessions;

	/** The stream other devices' sessions copy out of this device's memory on. */
	private final StagingStream stagingStream = new StagingStream(this);

	private final Map<String, KernelModule> modules = new ConcurrentHashMap<>();

	/** The kernels {@link #kernel(KernelRef)} found last, by the reference's identity. */
	private final @Nullable ResolvedKernel[] resolvedKernels = new ResolvedKernel[16];

	/** Captured flows still open: the device destroys them before its context goes. */
	private final Set<CapturedFlow> capturedFlows = ConcurrentHashMap.newKeySet();

	private final @Nullable Duration sessionTimeout;

	/**
	 * The sticky error that failed the device, set once: the device's health, which its
	 * pool reads to stop lending.
	 */
	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	/**
	 * The fault the GPU reported last (an Xid through NVML); a fatal one is kept over
	 * later lesser ones.
	 */
	private final AtomicReference<@Nullable GpuFault> gpuFault = new AtomicReference<>();

	/** The tenants of this device's stream pool and memory budget. */
	private final TenantShares tenants;

	Device(String backendName, boolean workOnHostProcessors, BackendDevice backendDevice, StreamPoolConfig poolConfig,
			OffloadListener listener, long bufferCacheMaxBytes, MemoryConfig memoryConfig, Executor completionExecutor,
			@Nullable Duration sessionTimeout, TenantPolicy tenants) {
		this.sessionTimeout = SessionDeadline.checked(sessionTimeout, "sessionTimeout");
		this.backendName = backendName;
		this.backendDevice = backendDevice;
		this.info = backendDevice.info();
		this.listener = CompositeOffloadListener.isolating(listener);
		MemoryConfig.DeviceBudget budget = memoryConfig.budgetOf(this.info);
		this.memory = new DeviceMemory(backendDevice, this.info, budget.bytes(), budget.source(), bufferCacheMaxBytes,
				ApiFailures.INSTANCE);
		this.completions = new Completions(id(), completionExecutor, workOnHostProcessors, backendDevice,
				this::activeSessions, this::failIfSticky, ApiFailures.INSTANCE);
		this.tenants = new TenantShares(tenants);
		this.streamPool = new StreamPool(this, poolConfig, this.tenants);
		this.sessions = new SessionContext(this, this.memory, this.completions, this.streamPool, this.listener);
	}

	/**
	 * Returns the device's id (its ordinal in the backend).
	 * @return the id
	 */
	public int id() {
		return this.info.id();
	}

	/**
	 * Returns the device's name.
	 * @return e.g. {@code "NVIDIA H200"}
	 */
	public String name() {
		return this.info.name();
	}

	/**
	 * Returns the name of the backend running the device.
	 * @return {@code "cuda"} or {@code "host"}
	 */
	public String backendName() {
		return this.backendName;
	}

	/**
	 * Returns the device's properties: compute capability, memory, multiprocessors,
	 * priority range.
	 * @return the properties
	 */
	public DeviceInfo info() {
		return this.info;
	}

	/**
	 * Returns the device's stream pool.
	 * @return the pool
	 */
	public StreamPool streamPool() {
		return this.streamPool;
	}

	/**
	 * Returns the sessions opened and not yet ended.
	 * @return the number of active sessions
	 */
	public int activeSessions() {
		return this.sessions.activeSessions();
	}

	/**
	 * Tells whether the device's stream pool is saturated: a borrower waits for a stream.
	 * @return {@code true} while at least one borrower waits
	 * @see StreamPool#isSaturated()
	 */
	public boolean isSaturated() {
		return this.streamPool.isSaturated();
	}

	/**
	 * Returns the timeout of sessions opened without one.
	 * @return the default session timeout, or {@code null} for none
	 */
	public @Nullable Duration sessionTimeout() {
		return this.sessionTimeout;
	}

	/**
	 * Tells whether the device can take work.
	 * @return {@code false} once a sticky error failed it
	 */
	public boolean isHealthy() {
		return this.failure.get() == null;
	}

	/**
	 * Returns the sticky error that failed the device, if one did.
	 * @return the error, or empty while the device is healthy
	 */
	public Optional<Throwable> failure() {
		return Optional.ofNullable(this.failure.get());
	}

	/**
	 * Tells whether the GPU reported a lesser fault of this device (an Xid that does not
	 * fail it, such as a page retirement): it still lends streams.
	 * @return {@code true} while the device is healthy and such a fault was reported
	 * @see #gpuFault()
	 */
	public boolean isDegraded() {
		GpuFault fault = this.gpuFault.get();
		return fault != null && !fault.fatal() && isHealthy();
	}

	/**
	 * Returns the fault the GPU reported of this device (an Xid, through NVML): the fatal
	 * one that failed it, or else the latest lesser one.
	 * @return the fault, or empty if none was reported
	 */
	public Optional<GpuFault> gpuFault() {
		return Optional.ofNullable(this.gpuFault.get());
	}

	/**
	 * Takes a fault the GPU reported: logs it once at ERROR, tells the listener, and
	 * fails the device if it is fatal.
	 */
	void gpuFaultReported(GpuFault fault) {
		this.gpuFault.updateAndGet((current) -> (current != null && current.fatal()) ? current : fault);
		boolean failsNow = fault.fatal() && isHealthy();
		logger.error("The GPU reported Xid {} ({}) on device {} ({}) at {}; {}", fault.xid(), fault.meaning(), id(),
				name(), fault.time(), failsNow ? "the device failed and stops lending streams" : fault.fatal()
						? "the device had failed before" : "the device is degraded and goes on lending streams");
		this.listener.gpuFault(this, fault);
		if (fault.fatal()) {
			fail(new GpuFaultException(fault), false);
		}
	}

	@Nullable Throwable stickyError() {
		return this.failure.get();
	}

	/**
	 * Opens a session with a {@link StreamPriority#NORMAL} stream. The stream is borrowed
	 * on the first operation.
	 * @return the session, which the caller must close
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down
	 */
	public OffloadSession openSession() {
		return openSession(StreamPriority.NORMAL);
	}

	/**
	 * Opens a session. The stream is borrowed on the first operation.
	 * @param priority the stream's priority class
	 * @return the session, which the caller must close
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down
	 */
	public OffloadSession openSession(StreamPriority priority) {
		return openSession(priority, null);
	}

	/**
	 * Opens a session with a deadline: waits of its caller (for a stream, in
	 * {@code synchronize} and {@code close}) end by {@code timeout} after now with a
	 * {@link SessionTimeoutException}.
	 * @param priority the stream's priority class
	 * @param timeout the time from now to the deadline, or {@code null} for the device's
	 * {@linkplain #sessionTimeout() default}
	 * @return the session, which the caller must close
	 * @throws IllegalArgumentException if the timeout is not positive
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device is shut down or shutting down
	 */
	public OffloadSession openSession(StreamPriority priority, @Nullable Duration timeout) {
		return openSession(priority, timeout, null);
	}

	/**
	 * Opens a session for a tenant ({@link DeviceRegistry#openSession(SessionOptions)}).
	 */
	OffloadSession openSession(StreamPriority priority, @Nullable Duration timeout, @Nullable String tenant) {
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
		SessionDeadline.checked(timeout, "timeout");
		checkTakesWork();
		OffloadSession session = new OffloadSession(this.sessions, priority,
				(timeout != null) ? timeout : this.sessionTimeout, tenant, this.tenants.opened(tenant));
		this.sessions.opened(session);
		return session;
	}

	/**
	 * Loads a module on this device, once per module name.
	 * @param definition the module
	 * @return the loaded module (the one loaded before under the same name, if any)
	 * @throws BackendException if the backend cannot load it
	 */
	public KernelModule loadModule(ModuleDefinition definition) {
		if (definition == null) {
			throw new IllegalArgumentException("definition must not be null");
		}
		checkUsable();
		return this.modules.computeIfAbsent(definition.name(),
				(name) -> new KernelModule(this, definition, call(() -> this.backendDevice.loadModule(definition))));
	}

	/**
	 * Returns a kernel of this device, loading its module the first time.
	 * @param kernel the kernel's module and name
	 * @return the kernel on this device
	 * @throws NoSuchKernelException if the module has no kernel of that name
	 * @throws BackendException if the backend cannot load the module
	 */
	public Kernel kernel(KernelRef kernel) {
		if (kernel == null) {
			throw new IllegalArgumentException("kernel must not be null");
		}
		// A fluent call looks its kernel up on every run: the reference the application
		// keeps finds it by identity here, without the modules' and kernels' maps.
		int slot = System.identityHashCode(kernel) & (this.resolvedKernels.length - 1);
		ResolvedKernel resolved = this.resolvedKernels[slot];
		if (resolved != null && resolved.ref() == kernel) {
			checkUsable();
			return resolved.kernel();
		}
		Kernel loaded = loadModule(kernel.module()).kernel(kernel.name());
		this.resolvedKernels[slot] = new ResolvedKernel(kernel, loaded);
		return loaded;
	}

	/**
	 * A kernel found by {@link #kernel(KernelRef)}; immutable, so that a thread that
	 * reads one another wrote sees it whole.
	 */
	private record ResolvedKernel(KernelRef ref, Kernel kernel) {
	}

	/**
	 * Allocates device memory owned by the caller, who must close it once no session uses
	 * it. It counts against the device's memory budget until closed; waits for the budget
	 * up to the borrow timeout of {@link StreamPriority#NORMAL} streams.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 * @throws MemoryBudgetExceededException if the budget did not admit the buffer in
	 * time, or is smaller than it
	 * @throws DeviceOutOfMemoryException if the device had no memory, even after Offload
	 * gave back what it cached
	 * @throws DeviceFailedException if the device failed
	 * @throws StreamPoolClosedException if the device was closed
	 */
	public DeviceBuffer allocate(long bytes) {
		long charged = allocationSize(bytes);
		// A failed or closed device refuses at once, not after waiting for the budget.
		checkUsable();
		this.memory.acquireBudget(charged, this.streamPool.borrowTimeoutNanos(StreamPriority.NORMAL));
		try {
			return new DeviceBuffer(this, this.sessions.acquireDeviceMemory(bytes, null), bytes, null);
		}
		catch (RuntimeException ex) {
			this.memory.releaseBudget(charged);
			throw ex;
		}
	}

	/**
	 * Allocates page-locked host memory owned by the caller, who must close it once no
	 * session uses it.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 * @throws HostStagingOutOfMemoryException if the host had no page-locked memory for
	 * the staging chunk it needed (retryable)
	 */
	public HostBuffer allocateHost(long bytes) {
		return new HostBuffer(this, this.sessions.acquireHostMemory(bytes), bytes, null);
	}

	/**
	 * Frees the device memory kept for reuse by closed buffers, without synchronizing the
	 * device (the frees are stream-ordered, on the device's memory thread). Page-locked
	 * staging is not trimmed here: the memory thread gives back its chunks once they have
	 * gone unused for about 30 seconds, and the rest when the device closes.
	 */
	public void trimBufferCache() {
		this.memory.trimDevice();
	}

	/**
	 * Returns the device memory kept for reuse by closed buffers.
	 * @return the cached bytes
	 */
	public long cachedBufferBytes() {
		return this.memory.cachedBytes();
	}

	/**
	 * Returns the device memory a buffer of {@code bytes} takes, from the device and from
	 * the budget: its size class (at least 512 bytes, then four classes per power of two,
	 * so at most 25% more than asked for).
	 * @param bytes the buffer's size, from 1 to 2^62 (4 EiB, more than any device holds)
	 * @return the bytes it takes
	 * @throws IllegalArgumentException if {@code bytes} is outside that range
	 */
	public static long allocationSize(long bytes) {
		if (bytes < 1) {
			throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
		}
		return DeviceMemory.sizeClass(bytes);
	}

	/**
	 * Returns the device's memory as Offload accounts it: bytes in use, cached and at
	 * peak (device and page-locked host), the budget, the cache's hits, misses and
	 * evictions, the driver's allocations and frees, out-of-memory retries and the
	 * budget's waits.
	 * @return a snapshot of the memory statistics
	 */
	public MemoryStatistics memoryStatistics() {
		return statisticsOf(this.memory.statistics());
	}

	/**
	 * Returns the API's statistics for the memory room's counts.
	 * @param counts the counts
	 * @return the statistics
	 */
	private static MemoryStatistics statisticsOf(MemoryCounts counts) {
		return new MemoryStatistics(counts.budgetBytes(), counts.usedBytes(), counts.cachedBytes(), counts.peakBytes(),
				counts.reservedPeakBytes(), counts.hostUsedBytes(), counts.hostCachedBytes(), counts.hostPeakBytes(),
				counts.cacheHits(), counts.cacheMisses(), counts.cacheEvictions(), counts.deviceAllocations(),
				counts.deviceFrees(), counts.hostAllocations(), counts.hostFrees(), counts.outOfMemoryRetries(),
				counts.outOfMemoryFailures(), counts.waiting(), counts.waitTimeouts(), counts.synchronizingCalls(),
				counts.budgetSource());
	}

	/**
	 * Returns what a stream library holds and did on this device: its handles (one per
	 * pooled stream that called it), their workspace (which also counts in the
	 * {@linkplain #memoryStatistics() memory statistics}' bytes in use), and its calls.
	 * @param library the library
	 * @return a snapshot; zeros for a library never called here
	 */
	public LibraryStatistics libraryStatistics(StreamLibrary<?> library) {
		if (library == null) {
			throw new IllegalArgumentException("library must not be null");
		}
		return this.sessions.libraryHandles.statistics(library);
	}

	/** The device's rooms, wired together for its sessions and buffers. */
	SessionContext sessions() {
		return this.sessions;
	}

	StagingStream stagingStream() {
		return this.stagingStream;
	}

	Completions completions() {
		return this.completions;
	}

	void adopt(CapturedFlow flow) {
		this.capturedFlows.add(flow);
	}

	void disown(CapturedFlow flow) {
		this.capturedFlows.remove(flow);
	}

	/**
	 * Returns the number of captured flows not yet closed.
	 * @return the flows this device will destroy when it shuts down
	 */
	public int capturedFlows() {
		return this.capturedFlows.size();
	}

	private <T> T call(java.util.function.Supplier<T> backendCall) {
		try {
			return backendCall.get();
		}
		catch (BackendException ex) {
			failIfSticky(ex);
			throw ex;
		}
	}

	void checkUsable() {
		this.streamPool.checkLending();
	}

	/**
	 * Throws if the device takes no new work: it failed, or it is closing.
	 * @throws DeviceFailedException if it failed
	 * @throws StreamPoolClosedException if it is closing
	 */
	void checkTakesWork() {
		checkUsable();
		if (this.sessions.isClosing()) {
			throw new StreamPoolClosedException(id());
		}
	}

	void failIfSticky(Throwable error) {
		if (error instanceof BackendException backendError && backendError.isSticky()) {
			fail(backendError);
		}
	}

	/**
	 * Marks the device failed: it stops lending and new sessions fail fast with
	 * {@code cause}.
	 * @param cause the sticky error
	 */
	void fail(Throwable cause) {
		fail(cause, true);
	}

	private void fail(Throwable cause, boolean log) {
		if (this.failure.compareAndSet(null, cause)) {
			this.streamPool.deviceFailed();
			if (log) {
				logger.error("Device {} ({}) failed and stops lending streams: {}", id(), name(), cause.getMessage());
			}
			this.listener.deviceFailed(this, cause);
		}
	}

	OffloadListener listener() {
		return this.listener;
	}

	BackendDevice backendDevice() {
		return this.backendDevice;
	}

	int nativePriority(StreamPriority priority) {
		return (priority == StreamPriority.HIGH) ? this.info.greatestPriority() : this.info.leastPriority();
	}

	/**
	 * Refuses new sessions from now on; the open ones may go on until {@link #close} ends
	 * them.
	 */
	void refuseNewSessions() {
		this.sessions.refuseNewSessions();
	}

	/**
	 * Refuses new sessions, waits for the open ones to end (their streams may still be
	 * borrowed meanwhile), stops lending, waits for lent streams, then releases the
	 * device's resources. Sessions left on the completion thread when the time is up are
	 * failed with a {@link StreamPoolClosedException}, never dropped.
	 * @param awaitTermination how long to wait for sessions and lent streams
	 * @return {@code true} if everything was released; {@code false} if sessions were
	 * still open or streams lent
	 */
	boolean close(Duration awaitTermination) {
		refuseNewSessions();
		long deadline = System.nanoTime() + awaitTermination.toNanos();
		this.sessions.awaitDrained(() -> activeSessions() == 0, deadline);
		boolean drained = this.streamPool.shutdown(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		if (!drained || activeSessions() > 0) {
			logger.warn("Device {}: {} stream(s) still lent and {} session(s) active after {} ms; sessions waiting "
					+ "for their work are failed, lent streams are not destroyed, and the device's context stays", id(),
					this.streamPool.inUse(), activeSessions(), awaitTermination.toMillis());
			this.completions.stopAndAbandon("shut down before its work finished (shutdown waited "
					+ awaitTermination.toMillis() + " ms for the sessions in flight)");
			return false;
		}
		// A copy out of this device that another device's session makes waits on this
		// device's completion engine: it goes first.
		if (!this.stagingStream.close(deadline)) {
			logger.warn("Device {}: a copy out of it to another device's session was still running after {} ms; "
					+ "the device's context stays", id(), awaitTermination.toMillis());
			this.completions.stopAndAbandon("shut down before its copy to another device finished (shutdown waited "
					+ awaitTermination.toMillis() + " ms)");
			return false;
		}
		if (!this.completions.stop()) {
			// A query of its may still reach the driver: the context stays.
			logger.warn("Device {}: its completion thread did not end; the device's context stays", id());
			return false;
		}
		// Every page-locked block back: the host buffers a caller owns, such as the
		// outputs an asynchronous call reads on the completion executor once its session
		// ended.
		boolean hostMemoryBack = this.sessions.awaitDrained(() -> this.memory.hostUsedBytes() == 0, deadline);
		this.capturedFlows.forEach(CapturedFlow::destroy);
		this.capturedFlows.clear();
		this.modules.values().forEach(this::unloadQuietly);
		if (!hostMemoryBack) {
			// The JVM reads page-locked memory directly: freeing it (or the context that
			// holds it) under an open buffer would crash a later read.
			logger.warn(
					"Device {}: {} bytes of page-locked memory still held by open host buffers after {} ms; "
							+ "they and the device's context are kept",
					id(), this.memory.hostUsedBytes(), awaitTermination.toMillis());
			this.memory.closeKeepingHostMemory();
			return false;
		}
		this.memory.close();
		this.backendDevice.close();
		return true;
	}

	private void unloadQuietly(KernelModule module) {
		try {
			module.unload();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not unload module '{}' of device {}: {}", module.name(), id(), ex.getMessage());
		}
	}

	@Override
	public String toString() {
		return "Device[" + id() + ", " + name() + ", " + this.backendName + (isHealthy() ? "" : ", failed") + "]";
	}

}
