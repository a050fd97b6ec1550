package dev.offload.test.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;

/**
 * Fails a test that leaves an Offload session open, naming the code that opened each
 * session left open. Only sessions that the test opened count, and only once their work
 * has ended: the check first waits, up to {@link #SESSION_END_WAIT}, for the test's
 * sessions to end (a test may return before the future of its last work completes), and a
 * session that an earlier test leaked is never blamed on a later one. Every test whose
 * context holds a {@link DeviceRegistry} is checked; under the test kit's configuration
 * ({@link OffloadTest @OffloadTest} or
 * {@link AutoConfigureOffload @AutoConfigureOffload}) each session is named with the line
 * that opened it, elsewhere the check counts each device's sessions against their number
 * before the test.
 */
public class OffloadLeakTestExecutionListener extends AbstractTestExecutionListener {

	/**
	 * How long the check waits for a test's sessions to end before it reports those still
	 * open.
	 */
	public static final Duration SESSION_END_WAIT = Duration.ofSeconds(10);

	private static final String TEST_MARK = OffloadLeakTestExecutionListener.class.getName() + ".test";

	@Override
	public int getOrder() {
		// After the listeners that roll back or clean up (they run first in
		// afterTestMethod at a higher order).
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		List<DeviceRegistry> registries = registries(testContext);
		if (registries.isEmpty()) {
			return;
		}
		SessionOpeners openers = openers(testContext);
		testContext.setAttribute(TEST_MARK,
				(openers != null) ? (Object) openers.startTest() : activeSessions(registries));
	}

	@Override
	public void afterTestMethod(TestContext testContext) throws InterruptedException {
		Object mark = testContext.removeAttribute(TEST_MARK);
		if (mark == null) {
			return;
		}
		SessionOpeners openers = openers(testContext);
		if (openers != null && mark instanceof Long test) {
			String leaks = leaks(openers, test);
			if (leaks != null) {
				AssertionError error = leakError(testContext, leaks);
				openers.openedIn(test).values().forEach(error::addSuppressed);
				throw error;
			}
			return;
		}
		String leaks = leaks(registries(testContext), mark);
		if (leaks != null) {
			throw leakError(testContext, leaks);
		}
	}

	private static AssertionError leakError(TestContext testContext, String leaks) {
		return new AssertionError(testContext.getTestMethod().getName() + " left Offload work behind: " + leaks);
	}

	private static @Nullable String leaks(SessionOpeners openers, long test) throws InterruptedException {
		openers.awaitEnd(test, SESSION_END_WAIT);
		Map<OffloadSession, Throwable> open = openers.openedIn(test);
		return open.isEmpty() ? null : open.size() + " session(s) still open " + SESSION_END_WAIT.toSeconds()
				+ " s after the test: " + describe(open);
	}

	/**
	 * Without the test kit's configuration no opener is known: compares each device's
	 * open sessions with their number before the test.
	 */
	@SuppressWarnings("unchecked")
	private static @Nullable String leaks(List<DeviceRegistry> registries, Object mark) {
		Map<Device, Integer> before = (Map<Device, Integer>) mark;
		long deadline = System.nanoTime() + SESSION_END_WAIT.toNanos();
		List<String> leaks = opened(registries, before);
		while (!leaks.isEmpty() && deadline - System.nanoTime() > 0) {
			// No listener tells when sessions end here: poll, bounded.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
			leaks = opened(registries, before);
		}
		return leaks.isEmpty() ? null : String.join("; ", leaks);
	}

	private static List<String> opened(List<DeviceRegistry> registries, Map<Device, Integer> before) {
		List<String> leaks = new ArrayList<>();
		for (DeviceRegistry registry : registries) {
			for (Device device : registry.devices()) {
				int opened = device.activeSessions() - before.getOrDefault(device, 0);
				if (opened > 0) {
					leaks.add("device " + device.id() + ": " + opened + " session(s) opened by the test still open");
				}
			}
		}
		return leaks;
	}

	private static Map<Device, Integer> activeSessions(List<DeviceRegistry> registries) {
		Map<Device, Integer> sessions = new HashMap<>();
		registries.forEach(
				(registry) -> registry.devices().forEach((device) -> sessions.put(device, device.activeSessions())));
		return sessions;
	}

	private static List<DeviceRegistry> registries(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return List.of();
		}
		return testContext.getApplicationContext().getBeanProvider(DeviceRegistry.class).stream().toList();
	}

	private static @Nullable SessionOpeners openers(TestContext testContext) {
		ApplicationContext context = testContext.getApplicationContext();
		return context.getBeanProvider(SessionOpeners.class).getIfAvailable();
	}

	private static String describe(Map<OffloadSession, Throwable> open) {
		List<String> openers = new ArrayList<>();
		open.forEach((session, stack) -> {
			StackTraceElement caller = opener(stack);
			openers.add("session " + session.id() + " on device " + session.device().id() + ", opened by "
					+ ((caller != null) ? caller : "an unknown caller"));
		});
		return String.join(", ", openers);
	}

	// The first frame outside Offload's own packages and the JDK is the application code
	// that opened the session.
	private static @Nullable StackTraceElement opener(Throwable stack) {
		for (StackTraceElement element : stack.getStackTrace()) {
			String type = element.getClassName();
			boolean framework = (type.startsWith("dev.offload.") && !type.startsWith("dev.offload.test."))
					|| type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("org.springframework.")
					|| type.startsWith("dev.offload.test.autoconfigure.");
			if (!framework) {
				return element;
			}
		}
		return null;
	}

}
