package dev.offload.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.autoconfigure.OverrideAutoConfiguration;
import org.springframework.boot.test.context.filter.annotation.TypeExcludeFilters;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.BootstrapWith;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A test slice that starts only Offload's auto-configurations, on the host backend, with
 * none of the application's scanned components: import the beans under test with
 * {@code @Import}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@BootstrapWith(OffloadTestContextBootstrapper.class)
@ExtendWith(SpringExtension.class)
@OverrideAutoConfiguration(enabled = false)
@TypeExcludeFilters(OffloadTypeExcludeFilter.class)
@AutoConfigureOffload
public @interface OffloadTest {

	/**
	 * Properties in {@code key=value} form added to the environment, such as
	 * {@code offload.test.faults.*}.
	 * @return the properties
	 */
	String[] properties() default {};

	/**
	 * The number of host devices to emulate.
	 * @return the device count
	 */
	@AliasFor(annotation = AutoConfigureOffload.class)
	int devices() default 1;

}
