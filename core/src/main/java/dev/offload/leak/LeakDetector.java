package dev.offload.leak;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.Device;
import dev.offload.InvalidSettingException;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;

/**
 * An {@link OffloadListener} that warns about {@link OffloadSession sessions} left open
 * longer than a threshold, the way HikariCP's leak detection warns about connections: one
 * WARN naming the device and the session, with the stack trace of the code that opened
 * it; if the session is closed later, one INFO saying so. Leaked sessions are counted per
 * device.
 * <p>
 * With a threshold of zero the detector is disabled: it captures nothing and starts no
 * thread. Otherwise it captures a stack trace on every
 * {@link #sessionOpened(OffloadSession) open} (a few microseconds) and runs one daemon
 * thread, {@value #THREAD_NAME}; {@link #close()} stops it.
 */
public final class LeakDetector implements OffloadListener, AutoCloseable {

	/**
	 * The name of the detector's thread.
	 */
	public static final String THREAD_NAME = "offload-leak-detector";

	private static final Logger logger = LoggerFactory.getLogger(LeakDetector.class);

	private static final String OPEN_SESSION_CLASS = Device.class.getName();

	private final Duration threshold;

	private final long thresholdNanos;

	private final @Nullable ScheduledThreadPoolExecutor scheduler;

	private final Map<Long, Tracked> open = new ConcurrentHashMap<>();

	private final Map<Integer, LongAdder> leaked = new ConcurrentHashMap<>();

	/**
	 * Creates a detector.
	 * @param threshold how long a session may stay open before it is reported; zero
	 * disables detection
	 * @throws IllegalArgumentException if {@code threshold} is {@code null} or negative
	 */
	public LeakDetector(Duration threshold) {
		if (threshold == null || threshold.isNegative()) {
			throw new InvalidSettingException("leakDetectionThreshold",
					"leakDetectionThreshold must be at least 0, was " + threshold);
		}
		this.threshold = threshold;
		this.thresholdNanos = saturatedNanos(threshold);
		this.scheduler = threshold.isZero() ? null : newScheduler();
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private static ScheduledThreadPoolExecutor newScheduler() {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, THREAD_NAME);
			thread.setDaemon(true);
			thread.setUncaughtExceptionHandler((t, ex) -> logger.error("Uncaught exception in {}", t.getName(), ex));
			return thread;
		});
		// A session closed in time cancels its check; drop it at once rather than at its
		// deadline.
		scheduler.setRemoveOnCancelPolicy(true);
		scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return scheduler;
	}

	/**
	 * Returns the threshold.
	 * @return how long a session may stay open before it is reported; zero when disabled
	 */
	public Duration threshold() {
		return this.threshold;
	}

	/**
	 * Tells whether the detector watches sessions.
	 * @return {@code true} if the threshold is positive
	 */
	public boolean isEnabled() {
		return this.scheduler != null;
	}

	/**
	 * Returns how many sessions of a device stayed open longer than the threshold since
	 * the detector started, whether or not they were closed later.
	 * @param deviceId the device's id
	 * @return the number of leaked sessions
	 */
	public long leakedSessions(int deviceId) {
		LongAdder count = this.leaked.get(deviceId);
		return (count != null) ? count.sum() : 0;
	}

	/**
	 * Returns how many sessions are open now and already past the threshold.
	 * @param deviceId the device's id
	 * @return the number of sessions reported as leaked and not yet closed
	 */
	public int openLeakedSessions(int deviceId) {
		return (int) this.open.values()
			.stream()
			.filter((tracked) -> tracked.deviceId == deviceId && tracked.isLeaked())
			.count();
	}

	@Override
	public void sessionOpened(OffloadSession session) {
		if (this.scheduler == null || this.scheduler.isShutdown()) {
			return;
		}
		Tracked tracked = new Tracked(session, openedHere());
		this.open.put(tracked.sessionId, tracked);
		try {
			tracked.check = this.scheduler.schedule(() -> reportIfOpen(tracked), this.thresholdNanos,
					TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			// Closed concurrently: nothing will check this session any more.
			this.open.remove(tracked.sessionId);
		}
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		if (this.scheduler == null) {
			return;
		}
		Tracked tracked = this.open.remove(session.id());
		if (tracked == null) {
			return;
		}
		tracked.closed(durationNanos);
	}

	private void reportIfOpen(Tracked tracked) {
		try {
			if (tracked.reportLeak(this.threshold)) {
				this.leaked.computeIfAbsent(tracked.deviceId, (id) -> new LongAdder()).increment();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Leak detection failed for session {} on device {}; ignored", tracked.sessionId,
					tracked.deviceId, ex);
		}
	}

	/**
	 * Stops the detector's thread; sessions opened later are not watched.
	 */
	@Override
	public void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.open.clear();
		}
	}

	@Override
	public String toString() {
		return "LeakDetector[threshold=" + this.threshold + (isEnabled() ? "" : ", disabled") + "]";
	}

	/**
	 * Captures the opener's stack, without the frames of Offload's listener plumbing
	 * above {@code openSession}.
	 */
	private static Throwable openedHere() {
		Throwable openedHere = new Throwable("Session opened here");
		StackTraceElement[] stack = openedHere.getStackTrace();
		int first = 0;
		for (int i = 0; i < stack.length; i++) {
			if (OPEN_SESSION_CLASS.equals(stack[i].getClassName())) {
				first = i;
			}
			else if (first > 0) {
				break;
			}
		}
		if (first > 0) {
			openedHere.setStackTrace(Arrays.copyOfRange(stack, first, stack.length));
		}
		return openedHere;
	}

	/**
	 * A watched session. Holds no reference to the session itself, so a session dropped
	 * without being closed can still be collected.
	 */
	private static final class Tracked {

		private static final int OPEN = 0;

		private static final int LEAKED = 1;

		private static final int CLOSED = 2;

		final long sessionId;

		final int deviceId;

		private final String deviceName;

		private @Nullable Throwable openedHere;

		private int state = OPEN;

		volatile @Nullable ScheduledFuture<?> check;

		Tracked(OffloadSession session, Throwable openedHere) {
			this.sessionId = session.id();
			this.deviceId = session.device().id();
			this.deviceName = session.device().name();
			this.openedHere = openedHere;
		}

		synchronized boolean isLeaked() {
			return this.state == LEAKED;
		}

		synchronized boolean reportLeak(Duration threshold) {
			if (this.state != OPEN) {
				return false;
			}
			this.state = LEAKED;
			logger.warn(
					"Session {} on device {} ({}) has been open for more than {} ms; it may have leaked: "
							+ "close every session, e.g. with try-with-resources",
					this.sessionId, this.deviceId, this.deviceName, threshold.toMillis(), this.openedHere);
			// The stack trace is reported; keep no more than needed for the follow-up.
			this.openedHere = null;
			return true;
		}

		synchronized void closed(long durationNanos) {
			int previous = this.state;
			this.state = CLOSED;
			ScheduledFuture<?> pending = this.check;
			if (pending != null) {
				pending.cancel(false);
			}
			if (previous == LEAKED) {
				logger.info("Session {} on device {} ({}), reported as a possible leak, was closed after {} ms",
						this.sessionId, this.deviceId, this.deviceName, TimeUnit.NANOSECONDS.toMillis(durationNanos));
			}
		}

	}

}
