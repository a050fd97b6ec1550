package dev.offload.test.autoconfigure;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
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
 * device), {@code allocate.out-of-memory} (the allocation fails with out of memory
 * instead), {@code allocate.times} (that many allocations in a row fail) and
 * {@code device} (the faults hit that device only).
 */
@AutoConfiguration(beforeName = "dev.offload.autoconfigure.OffloadAutoConfiguration")
public final class OffloadTestConfiguration {

	/**
	 * The prefix of the fault properties; outside {@code offload.*}, whose unknown keys
	 * fail an application's start.
	 */
	public static final String FAULTS_PREFIX = "offload.test.faults.";

	private static final String DEVICE = FAULTS_PREFIX + "device";

	private static final String OUT_OF_MEMORY = FAULTS_PREFIX + "allocate.out-of-memory";

	private static final String TIMES = FAULTS_PREFIX + "allocate.times";

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
		injectOutOfMemory(faults, environment);
		for (Operation operation : Operation.values()) {
			String prefix = prefix(operation);
			if (operation == Operation.ALLOCATE && environment.getProperty(OUT_OF_MEMORY, Boolean.class, false)) {
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

	private static void injectOutOfMemory(FaultInjectingBackend faults, Environment environment) {
		boolean outOfMemory = environment.getProperty(OUT_OF_MEMORY, Boolean.class, false);
		Long times = environment.getProperty(TIMES, Long.class);
		String failAt = prefix(Operation.ALLOCATE) + "fail-at";
		Long at = environment.getProperty(failAt, Long.class);
		if (!outOfMemory) {
			if (times != null) {
				throw new IllegalArgumentException(TIMES + " is set without " + OUT_OF_MEMORY + "=true");
			}
			return;
		}
		if (at == null) {
			throw new IllegalArgumentException(OUT_OF_MEMORY + " is set without " + failAt);
		}
		try {
			faults.failOutOfMemoryNth(at, (times != null) ? times : 1);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"The allocation fault (" + failAt + ", " + TIMES + ") is invalid: " + ex.getMessage(), ex);
		}
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
		known.add(OUT_OF_MEMORY);
		known.add(TIMES);
		Set<String> unknown = configurable.getPropertySources()
			.stream()
			.filter(EnumerablePropertySource.class::isInstance)
			.flatMap((source) -> Arrays.stream(((EnumerablePropertySource<?>) source).getPropertyNames()))
			.filter((name) -> name.startsWith(FAULTS_PREFIX) && !known.contains(name))
			.collect(Collectors.toCollection(TreeSet::new));
		if (!unknown.isEmpty()) {
			throw new IllegalArgumentException("Unknown fault properties " + unknown + "; the known ones are " + known);
		}
	}

}
