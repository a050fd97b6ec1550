package dev.offload.spring.pool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifies a {@link dev.offload.StreamPool} injection point with its device's id,
 * instead of the bean name {@code streamPool1} spelled by hand:
 * {@code MyService(@DevicePool(1) StreamPool pool)}. It matches the {@code streamPoolN}
 * beans that the auto-configuration registers before the registry exists (devices listed
 * in {@code offload.devices}, the host backend, or the devices the CUDA driver reports);
 * with an application's own registry or backend, inject {@link dev.offload.StreamPools}
 * and call {@code get(id)}.
 */
@Target({ ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface DevicePool {

	/**
	 * The device's id.
	 * @return the id
	 */
	int value();

}
