package dev.offload;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * One device of a {@link DeviceRegistry}: its {@link StreamPool}, event pool, buffer
 * cache, loaded modules and completion thread. Open work on it with
 * {@link #openSession()}.
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

	private final EventPool eventPool;

	private final BufferCache bufferCache;

	private final Map<String, KernelModule> modules = new ConcurrentHashMap<>();

	private final LongAdder activeSessions = new LongAdder();

	private volatile CompletionPoller completionPoller;

	private final Executor completionExecutor;

	private final Duration sessionTimeout;

	/** Set when shutdown began: new sessions are refused, the open ones may finish. */
	private volatile boolean closing;

	/**
	 * Signalled when a session ends while the device closes; a lock, not a monitor, so
	 * that waiting never pins.
	 */
	private final ReentrantLock drainLock = new ReentrantLock();

	private final Condition drained = this.drainLock.newCondition();

	Device(String backendName, BackendDevice backendDevice, StreamPoolConfig poolConfig, OffloadListener listener,
			long bufferCacheMaxBytes, Executor completionExecutor, Duration sessionTimeout) {
		this.sessionTimeout = SessionDeadline.checked(sessionTimeout, "sessionTimeout");
		this.backendName = backendName;
		this.completionExecutor = completionExecutor;
		this.backendDevice = backendDevice;
		this.info = backendDevice.info();
		this.listener = CompositeOffloadListener.isolating(listener);
		this.streamPool = new StreamPool(this, poolConfig);
		this.eventPool = new EventPool(backendDevice);
		this.bufferCache = new BufferCache(backendDevice, bufferCacheMaxBytes);
		OffloadSession.initializeVirtualThreadWaits();
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
	 * Returns the device's event pool.
	 * @return the pool
	 */
	EventPool eventPool() {
		return this.eventPool;
	}

	/**
	 * Returns the sessions opened and not yet ended.
	 * @return the number of active sessions
	 */
	public int activeSessions() {
		return this.activeSessions.intValue();
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
	public Duration sessionTimeout() {
		return this.sessionTimeout;
	}

	/**
	 * Tells whether the device can take work.
	 * @return {@code false} once a sticky error failed it
	 */
	public boolean isHealthy() {
		return this.streamPool.failure() == null;
	}

	/**
	 * Returns the sticky error that failed the device, if one did.
	 * @return the error, or empty while the device is healthy
	 */
	public Optional<Throwable> failure() {
		return Optional.ofNullable(this.streamPool.failure());
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
	public OffloadSession openSession(StreamPriority priority, Duration timeout) {
		if (priority == null) {
			throw new IllegalArgumentException("priority must not be null");
		}
		SessionDeadline.checked(timeout, "timeout");
		checkUsable();
		if (this.closing) {
			throw new StreamPoolClosedException(id());
		}
		OffloadSession session = new OffloadSession(this, priority, (timeout != null) ? timeout : this.sessionTimeout);
		this.activeSessions.increment();
		this.listener.sessionOpened(session);
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
		return loadModule(kernel.module()).kernel(kernel.name());
	}

	/**
	 * Allocates device memory owned by the caller, who must close it once no session uses
	 * it.
	 * @param bytes the size, at least 1
	 * @return the buffer
	 */
	public DeviceBuffer allocate(long bytes) {
		return new DeviceBuffer(this, acquireMemory(bytes, false), bytes, null);
	}

	/**
	 * Allocates page-locked host memory owned by the caller, who must close it once no
	 * session uses it.
	 * @param bytes the size, from 1 to 2^31-1
	 * @return the buffer
	 */
	public HostBuffer allocateHost(long bytes) {
		return new HostBuffer(this, acquireMemory(bytes, true), bytes, null);
	}

	/**
	 * Frees the memory kept for reuse by closed buffers.
	 */
	public void trimBufferCache() {
		this.bufferCache.trim();
	}

	/**
	 * Returns the bytes kept for reuse by closed buffers.
	 * @return the cached bytes
	 */
	public long cachedBufferBytes() {
		return this.bufferCache.cachedBytes();
	}

	NativeMemory acquireMemory(long bytes, boolean host) {
		if (bytes < 1) {
			throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
		}
		if (host && bytes > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"A host buffer holds at most " + Integer.MAX_VALUE + " bytes, was " + bytes);
		}
		checkUsable();
		return call(() -> this.bufferCache.acquire(bytes, host));
	}

	void releaseMemory(NativeMemory memory) {
		try {
			this.bufferCache.release(memory);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not free {} bytes of device {}: {}", memory.size(), id(), ex.getMessage());
		}
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
		if (this.streamPool.failure() == null) {
			this.streamPool.fail(cause);
			logger.error("Device {} ({}) failed and stops lending streams: {}", id(), name(), cause.getMessage());
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

	CompletionPoller completionPoller() {
		CompletionPoller poller = this.completionPoller;
		if (poller == null) {
			synchronized (this) {
				poller = this.completionPoller;
				if (poller == null) {
					poller = new CompletionPoller(id());
					this.completionPoller = poller;
				}
			}
		}
		return poller;
	}

	/**
	 * Returns the sessions handed to the completion thread and not yet done.
	 */
	int pendingCompletions() {
		CompletionPoller poller = this.completionPoller;
		return (poller != null) ? poller.outstanding() : 0;
	}

	/**
	 * Completes {@code future} on the completion executor, never on the calling thread:
	 * called by the completion thread, which must not run the future's dependent stages
	 * (user code that may block).
	 */
	<T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
		Runnable completion = () -> {
			if (failure == null) {
				future.complete(value);
			}
			else {
				future.completeExceptionally(failure);
			}
		};
		try {
			this.completionExecutor.execute(completion);
		}
		catch (RejectedExecutionException ex) {
			// An executor shut down before the registry (an application context closing)
			// must neither lose the completion nor push user code onto the completion
			// thread.
			logger.warn("Device {}: the completion executor refused a completion ({}); completing it on a thread of "
					+ "its own", id(), ex.getMessage());
			Thread thread = new Thread(completion, "offload-device" + id() + "-completion-fallback");
			thread.setDaemon(true);
			thread.start();
		}
	}

	/**
	 * Has the completion thread watch {@code event} (recorded on a session's stream) and
	 * complete {@code reached} once it is, or with the failure of the work before it; the
	 * event goes back to the pool then.
	 */
	void watch(BackendEvent event, CompletableFuture<Void> reached) {
		completionPoller().submit(new CompletionPoller.Task() {

			@Override
			public boolean poll() {
				boolean done;
				try {
					done = event.query();
				}
				catch (RuntimeException ex) {
					failIfSticky(ex);
					Device.this.eventPool.release(event);
					complete(reached, null, ex);
					return true;
				}
				if (done) {
					Device.this.eventPool.release(event);
					complete(reached, null, null);
				}
				return done;
			}

			@Override
			public void abandon(String reason) {
				// The event stays recorded on a stream that is still lent: it is not
				// given back to the pool.
				complete(reached, null, new StreamPoolClosedException("Device " + id() + " was " + reason));
			}

		});
	}

	Thread completionThread() {
		CompletionPoller poller = this.completionPoller;
		return (poller != null) ? poller.thread() : null;
	}

	void sessionEnded(OffloadSession session, Throwable failure) {
		this.activeSessions.decrement();
		if (this.closing) {
			this.drainLock.lock();
			try {
				this.drained.signalAll();
			}
			finally {
				this.drainLock.unlock();
			}
		}
		if (isListened()) {
			this.listener.sessionClosed(session, System.nanoTime() - session.openedNanos(), failure);
		}
	}

	boolean isListened() {
		return this.listener != OffloadListener.NONE;
	}

	/**
	 * Refuses new sessions from now on; the open ones may go on until {@link #close} ends
	 * them.
	 */
	void refuseNewSessions() {
		this.closing = true;
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
		awaitSessionsEnded(deadline);
		boolean drained = this.streamPool.shutdown(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		CompletionPoller poller = this.completionPoller;
		if (!drained || activeSessions() > 0) {
			logger.warn("Device {}: {} stream(s) still lent and {} session(s) active after {} ms; sessions waiting "
					+ "for their work are failed, lent streams are not destroyed, and the device's context stays", id(),
					this.streamPool.inUse(), activeSessions(), awaitTermination.toMillis());
			if (poller != null) {
				poller.stopAndAbandon("shut down before its work finished (shutdown waited "
						+ awaitTermination.toMillis() + " ms for the sessions in flight)");
			}
			return false;
		}
		if (poller != null) {
			poller.stop();
		}
		this.eventPool.close();
		this.modules.values().forEach(this::unloadQuietly);
		this.bufferCache.trim();
		this.backendDevice.close();
		return true;
	}

	private void awaitSessionsEnded(long deadline) {
		this.drainLock.lock();
		try {
			while (activeSessions() > 0) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return;
				}
				// Bounded so that a missed wake-up costs at most 50 ms.
				this.drained.awaitNanos(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.drainLock.unlock();
		}
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
