package dev.offload.spring.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import dev.offload.template.Offload;
import dev.offload.template.OffloadAttributes;

/**
 * Finds the {@link Offload @Offload} of a method call, as Spring's
 * {@code AnnotationTransactionAttributeSource} does: on the most specific method, then on
 * the interface or declared method, then on the target class, then on the declaring
 * class. The methods of {@link Object} ({@code toString}, {@code equals},
 * {@code hashCode}, even overridden) are never advised. Results are cached per method and
 * target class.
 */
final class OffloadAttributeSource {

	private final Map<MethodClassKey, Optional<OffloadAttributes>> cache = new ConcurrentHashMap<>();

	/**
	 * Returns the attributes for a call.
	 * @param method the invoked method
	 * @param targetClass the target's class, or {@code null}
	 * @return the attributes, or {@code null} if the method is not annotated
	 */
	@Nullable OffloadAttributes find(Method method, @Nullable Class<?> targetClass) {
		if (ReflectionUtils.isObjectMethod(method)) {
			// toString, equals and hashCode of an annotated class open no session.
			return null;
		}
		return this.cache
			.computeIfAbsent(new MethodClassKey(method, targetClass),
					(key) -> Optional.ofNullable(compute(method, targetClass)))
			.orElse(null);
	}

	private static @Nullable OffloadAttributes compute(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		Offload offload = AnnotatedElementUtils.findMergedAnnotation(specific, Offload.class);
		if (offload == null && specific != method) {
			offload = AnnotatedElementUtils.findMergedAnnotation(method, Offload.class);
		}
		if (offload == null && targetClass != null) {
			offload = AnnotatedElementUtils.findMergedAnnotation(targetClass, Offload.class);
		}
		if (offload == null) {
			offload = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Offload.class);
		}
		if (offload == null) {
			return null;
		}
		try {
			return OffloadAttributes.of(offload);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid @Offload on " + method.getDeclaringClass().getName() + "."
					+ method.getName() + ": " + ex.getMessage(), ex);
		}
	}

}
