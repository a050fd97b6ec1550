package dev.offload.test.autoconfigure;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;

import dev.offload.spi.Backend;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

/**
 * What {@link AutoConfigureOffload} adds to Offload's auto-configurations: the session
 * openers for the leak check, and the backend wrapped in a {@link FaultInjectingBackend}
 * (a test may inject it to fail a device at will), with the faults of the
 * {@code offload.test.faults.*} properties: {@code <operation>.fail-at} (the Nth call
 * fails, counted from startup), {@code <operation>.sticky} (the failure kills its
 * device), {@code allocate.out-of-memory} and {@code allocate-host.out-of-memory} (the
 * device or page-locked host allocation fails with out of memory instead),
 * {@code allocate.times} and {@code allocate-host.times} (that many allocations in a row
 * fail), {@code device} (the faults hit that device only) and {@code xid.<device>} (the
 * GPU reports that Xid of that device as the registry starts, as NVML would: see
 * {@link FaultInjectingBackend#injectXid}).
 */
@AutoConfiguration(beforeName = "dev.offload.autoconfigure.OffloadAutoConfiguration")
public final class OffloadTestConfiguration {

	/**
	 * The prefix of the fault properties; outside {@code offload.*}, whose unknown keys
	 * fail an application's start.
	 */
	public static final String FAULTS_PREFIX = "offload.test.faults.";

	private static final String DEVICE = FAULTS_PREFIX + "device";

	/** The prefix of the Xids reported at startup, {@code xid.<device>=<xid>}. */
	private static final String XID = FAULTS_PREFIX + "xid.";

	/** The allocations that may fail with out of memory. */
	private static final Set<Operation> ALLOCATIONS = EnumSet.of(Operation.ALLOCATE, Operation.ALLOCATE_HOST);

	@Bean
	SessionOpeners offloadTestSessionOpeners() {
		return new SessionOpeners();
	}

	@Bean
	static BeanPostProcessor offloadTestFaultInjector(Environment environment) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof Backend backend && !(bean instanceof FaultInjectingBackend))
						? injectFaults(backend, environment) : bean;
			}

		};
	}

	static FaultInjectingBackend injectFaults(Backend backend, Environment environment) {
		rejectUnknownProperties(environment);
		FaultInjectingBackend faults = FaultInjectingBackend.wrap(backend);
		Integer device = environment.getProperty(DEVICE, Integer.class);
		if (device != null) {
			try {
				faults.onDevice(device);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						DEVICE + " names no device of the test's backend: " + ex.getMessage(), ex);
			}
		}
		injectXids(faults, environment);
		for (Operation operation : Operation.values()) {
			String prefix = prefix(operation);
			if (ALLOCATIONS.contains(operation) && injectOutOfMemory(faults, operation, environment)) {
				continue;
			}
			Long failAt = environment.getProperty(prefix + "fail-at", Long.class);
			boolean sticky = environment.getProperty(prefix + "sticky", Boolean.class, false);
			if (failAt == null) {
				if (sticky) {
					throw new IllegalArgumentException(prefix + "sticky is set without " + prefix + "fail-at");
				}
				continue;
			}
			if (failAt < 1) {
				throw new IllegalArgumentException(prefix + "fail-at must be 1 or more, was " + failAt);
			}
			if (sticky) {
				faults.failStickyNth(operation, failAt);
			}
			else {
				faults.failNth(operation, failAt);
			}
		}
		return faults;
	}

	/**
	 * Injects the out-of-memory fault of an allocation operation, if its properties ask
	 * for one.
	 * @return whether they did
	 */
	private static boolean injectOutOfMemory(FaultInjectingBackend faults, Operation operation,
			Environment environment) {
		String outOfMemoryKey = prefix(operation) + "out-of-memory";
		String timesKey = prefix(operation) + "times";
		String failAtKey = prefix(operation) + "fail-at";
		boolean outOfMemory = environment.getProperty(outOfMemoryKey, Boolean.class, false);
		Long times = environment.getProperty(timesKey, Long.class);
		Long at = environment.getProperty(failAtKey, Long.class);
		if (!outOfMemory) {
			if (times != null) {
				throw new IllegalArgumentException(timesKey + " is set without " + outOfMemoryKey + "=true");
			}
			return false;
		}
		if (at == null) {
			throw new IllegalArgumentException(outOfMemoryKey + " is set without " + failAtKey);
		}
		try {
			faults.failOutOfMemoryNth(operation, at, (times != null) ? times : 1);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"The allocation fault (" + failAtKey + ", " + timesKey + ") is invalid: " + ex.getMessage(), ex);
		}
		return true;
	}

	private static void injectXids(FaultInjectingBackend faults, Environment environment) {
		for (String name : faultPropertyNames(environment)) {
			if (!name.startsWith(XID)) {
				continue;
			}
			try {
				int device = Integer.parseInt(name.substring(XID.length()));
				faults.injectXid(device, Objects.requireNonNull(environment.getProperty(name, Integer.class)));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(name + " (" + XID + "<device>=<xid>) is invalid: " + ex.getMessage(),
						ex);
			}
		}
	}

	private static Set<String> faultPropertyNames(Environment environment) {
		if (!(environment instanceof ConfigurableEnvironment configurable)) {
			return Set.of();
		}
		return configurable.getPropertySources()
			.stream()
			.filter(EnumerablePropertySource.class::isInstance)
			.flatMap((source) -> Arrays.stream(((EnumerablePropertySource<?>) source).getPropertyNames()))
			.filter((name) -> name.startsWith(FAULTS_PREFIX))
			.collect(Collectors.toCollection(TreeSet::new));
	}

	private static String prefix(Operation operation) {
		return FAULTS_PREFIX + operation.name().toLowerCase(Locale.ROOT).replace('_', '-') + ".";
	}

	// A mistyped fault property would silently inject nothing: the test would pass
	// without its fault.
	private static void rejectUnknownProperties(Environment environment) {
		if (!(environment instanceof ConfigurableEnvironment configurable)) {
			return;
		}
		Set<String> known = Arrays.stream(Operation.values())
			.flatMap((operation) -> Set.of(prefix(operation) + "fail-at", prefix(operation) + "sticky").stream())
			.collect(Collectors.toCollection(TreeSet::new));
		known.add(DEVICE);
		for (Operation operation : ALLOCATIONS) {
			known.add(prefix(operation) + "out-of-memory");
			known.add(prefix(operation) + "times");
		}
		Set<String> unknown = faultPropertyNames(configurable).stream()
			.filter((name) -> !known.contains(name) && !name.matches(Pattern.quote(XID) + "\\d+"))
			.collect(Collectors.toCollection(TreeSet::new));
		if (!unknown.isEmpty()) {
			throw new IllegalArgumentException("Unknown fault properties " + unknown + "; the known ones are " + known
					+ " and " + XID + "<device>");
		}
	}

}
