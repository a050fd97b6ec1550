package dev.offload.test.autoconfigure;

import java.util.Locale;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.spi.Backend;

/**
 * What {@link AutoConfigureOffload} adds to Offload's auto-configurations: the session openers for the leak check,
 * and faults injected into the backend from {@code offload.test.faults.<operation>.fail-at} (the Nth call fails,
 * counted from startup) and {@code offload.test.faults.<operation>.sticky} (the failure kills its device).
 */
@AutoConfiguration(beforeName = "dev.offload.autoconfigure.OffloadAutoConfiguration")
public final class OffloadTestConfiguration {

	/** The prefix of the fault properties. */
	public static final String FAULTS_PREFIX = "offload.test.faults.";

	@Bean
	SessionOpeners offloadTestSessionOpeners() {
		return new SessionOpeners();
	}

	@Bean
	static BeanPostProcessor offloadTestFaultInjector(Environment environment) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof Backend backend) ? injectFaults(backend, environment) : bean;
			}

		};
	}

	static Backend injectFaults(Backend backend, Environment environment) {
		FaultInjectingBackend faults = null;
		for (Operation operation : Operation.values()) {
			String prefix = FAULTS_PREFIX + operation.name().toLowerCase(Locale.ROOT).replace('_', '-') + ".";
			Long failAt = environment.getProperty(prefix + "fail-at", Long.class);
			if (failAt == null) {
				continue;
			}
			if (failAt < 1) {
				throw new IllegalArgumentException(prefix + "fail-at must be 1 or more, was " + failAt);
			}
			faults = (faults != null) ? faults : FaultInjectingBackend.wrap(backend);
			if (environment.getProperty(prefix + "sticky", Boolean.class, false)) {
				faults.failStickyNth(operation, failAt);
			}
			else {
				faults.failNth(operation, failAt);
			}
		}
		return (faults != null) ? faults : backend;
	}

}
