package dev.offload.test.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;

/**
 * Fails a test that leaves an Offload session open or a stream lent, naming the code that
 * opened each session left open. Only tests whose context holds a {@link DeviceRegistry}
 * are checked.
 */
public class OffloadLeakTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		// After the listeners that roll back or clean up (they run first in
		// afterTestMethod at a higher order).
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		List<DeviceRegistry> registries = context.getBeanProvider(DeviceRegistry.class).stream().toList();
		if (registries.isEmpty()) {
			return;
		}
		SessionOpeners openers = context.getBeanProvider(SessionOpeners.class).getIfAvailable();
		Map<OffloadSession, Throwable> open = (openers != null) ? openers.openSessions() : Map.of();
		List<String> leaks = new ArrayList<>();
		for (DeviceRegistry registry : registries) {
			for (Device device : registry.devices()) {
				if (device.activeSessions() != 0 || device.streamPool().inUse() != 0) {
					leaks.add("device " + device.id() + ": " + device.activeSessions() + " open session(s), "
							+ device.streamPool().inUse() + " stream(s) lent");
				}
			}
		}
		if (leaks.isEmpty()) {
			return;
		}
		if (openers != null) {
			openers.clear();
		}
		AssertionError error = new AssertionError(testContext.getTestMethod().getName() + " left Offload work behind: "
				+ String.join("; ", leaks) + (open.isEmpty() ? "" : "; opened at " + describe(open)));
		open.values().forEach(error::addSuppressed);
		throw error;
	}

	private static String describe(Map<OffloadSession, Throwable> open) {
		List<String> openers = new ArrayList<>();
		open.forEach((session, stack) -> {
			StackTraceElement caller = opener(stack);
			openers.add("session " + session.id() + " by " + ((caller != null) ? caller : "an unknown caller"));
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
