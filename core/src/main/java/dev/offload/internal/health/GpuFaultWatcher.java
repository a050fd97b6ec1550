package dev.offload.internal.health;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.health.GpuFault;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

/**
 * The door of the GPU fault room, a registry's watch of the GPU's own fault reports: a
 * daemon thread named {@code offload-nvml} reads its backend's {@link GpuFaultSource}
 * (NVML's Xid events on the CUDA backends, {@link NvmlGpuFaultSource}), classes each
 * report by the Xid catalog and hands the {@link GpuFault} to the registry, whose device
 * a fatal Xid fails as a sticky error does. The source's wait is bounded, so that
 * {@link #close()} stops the thread within about {@link #POLL} (at once where the wait is
 * interruptible).
 */
public final class GpuFaultWatcher implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(GpuFaultWatcher.class);

	/** The longest wait of the source: how long a close may wait for the thread. */
	static final Duration POLL = Duration.ofMillis(250);

	static final String THREAD_NAME = "offload-nvml";

	private final @Nullable GpuFaultSource source;

	private final String description;

	private final Set<Integer> deviceIds;

	private final Consumer<GpuFault> reported;

	private final @Nullable Thread thread;

	private volatile boolean stopped;

	private GpuFaultWatcher(@Nullable GpuFaultSource source, String description, List<BackendDevice> devices,
			Consumer<GpuFault> reported) {
		this.source = source;
		this.description = description;
		this.deviceIds = devices.stream().map(BackendDevice::deviceId).collect(Collectors.toUnmodifiableSet());
		this.reported = reported;
		if (source != null) {
			Thread watcher = new Thread(this::run, THREAD_NAME);
			watcher.setDaemon(true);
			this.thread = watcher;
		}
		else {
			this.thread = null;
		}
	}

	/**
	 * Opens the backend's fault source for the devices and starts watching it; or says
	 * why there is no watch.
	 * @param backend the registry's backend
	 * @param devices the registry's devices
	 * @param enabled whether the registry was asked to watch
	 * @param reported takes each fault of one of the devices, on the watcher's thread
	 * @return the watcher, watching or not
	 */
	public static GpuFaultWatcher start(Backend backend, List<BackendDevice> devices, boolean enabled,
			Consumer<GpuFault> reported) {
		GpuFaultWatcher watcher = open(backend, devices, enabled, reported);
		if (watcher.thread != null) {
			logger.info("Offload watches the GPU's fault reports: {}", watcher.description);
			watcher.thread.start();
		}
		else {
			logger.info("Offload does not watch the GPU's fault reports (NVML health is off): {}", watcher.description);
		}
		return watcher;
	}

	private static GpuFaultWatcher open(Backend backend, List<BackendDevice> devices, boolean enabled,
			Consumer<GpuFault> reported) {
		if (!enabled) {
			return new GpuFaultWatcher(null, "turned off (offload.health.nvml.enabled=false)", devices, reported);
		}
		try {
			GpuFaultSource source = backend.openGpuFaultSource(devices);
			return new GpuFaultWatcher(source, source.description(), devices, reported);
		}
		catch (UnsupportedOperationException ex) {
			return new GpuFaultWatcher(null, String.valueOf(ex.getMessage()), devices, reported);
		}
		catch (RuntimeException | LinkageError ex) {
			return new GpuFaultWatcher(null, "the fault source could not be opened: " + ex, devices, reported);
		}
	}

	/**
	 * Tells whether the thread watches a source.
	 * @return {@code true} if it does
	 */
	public boolean isWatching() {
		return this.thread != null;
	}

	/**
	 * Describes the source watched, or why there is none.
	 * @return the source's description, or the reason
	 */
	public String description() {
		return this.description;
	}

	private void run() {
		GpuFaultSource source = this.source;
		if (source == null) {
			return;
		}
		while (!this.stopped) {
			GpuFaultSource.Report report;
			try {
				report = source.next(POLL);
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Offload stops watching the GPU's fault reports: {}", ex.toString());
				return;
			}
			if (report != null && !this.stopped) {
				deliver(report);
			}
		}
	}

	private void deliver(GpuFaultSource.Report report) {
		if (!this.deviceIds.contains(report.deviceId())) {
			logger.warn("The GPU reported Xid {} of device {}, which the registry does not use", report.xid(),
					report.deviceId());
			return;
		}
		XidCatalog.Entry entry = XidCatalog.lookUp(report.xid());
		try {
			this.reported
				.accept(new GpuFault(report.deviceId(), report.xid(), report.time(), entry.meaning(), entry.fatal()));
		}
		catch (RuntimeException ex) {
			logger.warn("Offload could not take Xid {} of device {}", report.xid(), report.deviceId(), ex);
		}
	}

	/**
	 * Stops the thread, waits for it, and closes the source.
	 */
	@Override
	public void close() {
		this.stopped = true;
		Thread watcher = this.thread;
		GpuFaultSource source = this.source;
		if (watcher == null || source == null) {
			return;
		}
		// Ends a wait that Java can interrupt (an injected source's); NVML's native wait
		// ends at its timeout.
		watcher.interrupt();
		try {
			watcher.join(POLL.multipliedBy(4).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (watcher.isAlive()) {
			// A source that ignores its timeout: leave it open rather than free what the
			// thread still waits in.
			logger.warn("Offload's {} thread did not stop; its fault source is left open", THREAD_NAME);
			return;
		}
		try {
			source.close();
		}
		catch (RuntimeException ex) {
			logger.warn("Offload could not close the GPU's fault source: {}", ex.toString());
		}
	}

}
