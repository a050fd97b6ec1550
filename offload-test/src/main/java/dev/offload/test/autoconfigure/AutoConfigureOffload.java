package dev.offload.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Imports Offload's auto-configurations on the host backend with a chosen number of
 * emulated devices, so that a test runs GPU code without a GPU; wraps the backend in a
 * {@link dev.offload.test.fault.FaultInjectingBackend} with the faults of the
 * {@code offload.test.faults.*} properties, and records who opened each session, for the
 * leak check after each test.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureOffload {

	/**
	 * The number of host devices to emulate ({@code offload.host.device-count}).
	 * @return the device count
	 */
	@PropertyMapping("offload.host.device-count")
	int devices() default 1;

	/**
	 * The backend ({@code offload.backend}); the host backend unless a test asks for
	 * another.
	 * @return the backend's name
	 */
	@PropertyMapping("offload.backend")
	String backend() default "host";

}
