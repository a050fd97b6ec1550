package dev.offload.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

import dev.offload.Device;
import dev.offload.DeviceRegistry;

/**
 * Shuts Offload down in order when the application context closes: the batchers
 * ({@code @Batched} methods, {@code template.batcher(..)}) refuse new calls and dispatch
 * the calls they queued while the pools still lend, then the devices stop lending, wait
 * for sessions in flight, destroy the streams and release the devices, all within
 * {@code offload.shutdown.await-termination} ({@link DeviceRegistry#close(Duration)}
 * keeps that order). A stream still lent when the wait ends is never destroyed under its
 * user; {@link DeviceRegistry#close} logs each device that still has work.
 * <p>
 * It stops in {@link #PHASE}, after the web server and other lifecycle beans of higher
 * phases stopped taking work, and before any bean is destroyed: the batchers drain while
 * their {@code @Batched} beans and the {@code @Offload} advice of their batch methods
 * still work. Only the close of its own context closes the registries: a stop without a
 * close ({@code context.stop()}, or the pause of a cached test context that Spring's
 * TestContext framework makes when another context runs) leaves them open, so a later
 * {@code start()} or {@code restart()} finds them working.
 */
public final class OffloadLifecycle
		implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

	/**
	 * The phase: below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024})
	 * and stop ({@code DEFAULT_PHASE - 2048}), so Offload stops after them.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Logger logger = LoggerFactory.getLogger(OffloadLifecycle.class);

	private final List<DeviceRegistry> registries;

	private final Duration awaitTermination;

	private volatile boolean running;

	private volatile boolean closing;

	private @Nullable ApplicationContext context;

	/**
	 * Creates the lifecycle.
	 * @param registries the registries to close
	 * @param awaitTermination how long to wait for sessions in flight, for all registries
	 * together
	 */
	public OffloadLifecycle(List<DeviceRegistry> registries, Duration awaitTermination) {
		this.registries = List.copyOf(registries);
		this.awaitTermination = awaitTermination;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	/**
	 * Notes that the context is closing (the event comes before the lifecycle beans
	 * stop), so that {@link #stop()} closes the registries; a closing child context is
	 * not this one.
	 * @param event the event
	 */
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (this.context == null || event.getApplicationContext() == this.context) {
			this.closing = true;
		}
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Closes the registries, waiting for sessions in flight, when the context closes;
	 * otherwise only marks the lifecycle stopped.
	 */
	@Override
	public void stop() {
		this.running = false;
		if (!this.closing) {
			logger.debug("Offload stopped without a context close; the registries stay open");
			return;
		}
		long deadline = System.nanoTime() + this.awaitTermination.toNanos();
		for (DeviceRegistry registry : this.registries) {
			if (registry.isClosed()) {
				continue;
			}
			logInFlight(registry);
			// Each registry waits as long as it was built to (an application's own may
			// differ), and all of them together no longer than the shutdown's bound.
			Duration left = Duration
				.ofNanos(Math.min(registry.awaitTermination().toNanos(), Math.max(0, deadline - System.nanoTime())));
			if (registry.close(left)) {
				logger.debug("Offload {} closed", registry);
			}
		}
	}

	private void logInFlight(DeviceRegistry registry) {
		for (Device device : registry.devices()) {
			int sessions = device.activeSessions();
			int lent = device.streamPool().inUse();
			if (sessions > 0 || lent > 0) {
				logger.info(
						"Offload is shutting down: device {} has {} session(s) in flight and {} stream(s) lent; "
								+ "waiting up to {} ms for them",
						device.id(), sessions, lent, this.awaitTermination.toMillis());
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Returns {@code false}: pausing a context (as Spring's test framework does with
	 * cached contexts) must not touch the devices.
	 * @return {@code false}
	 */
	@Override
	public boolean isPauseable() {
		return false;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
