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

	private final Map<MethodClassKey, Optional<Advice>> cache = new ConcurrentHashMap<>();

	/**
	 * Returns the advice for a call.
	 * @param method the invoked method
	 * @param targetClass the target's class, or {@code null}
	 * @return the attributes and the return type, or {@code null} if the method is not
	 * annotated
	 */
	@Nullable Advice find(Method method, @Nullable Class<?> targetClass) {
		if (ReflectionUtils.isObjectMethod(method)) {
			// toString, equals and hashCode of an annotated class open no session.
			return null;
		}
		return this.cache
			.computeIfAbsent(new MethodClassKey(method, targetClass),
					(key) -> Optional.ofNullable(compute(method, targetClass)))
			.orElse(null);
	}

	private static @Nullable Advice compute(Method method, @Nullable Class<?> targetClass) {
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
			// The implementation's return type: an interface's may be a type variable.
			return new Advice(OffloadAttributes.of(offload), specific.getReturnType());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid @Offload on " + method.getDeclaringClass().getName() + "."
					+ method.getName() + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * What the advice of a call needs, found once per method and target class.
	 *
	 * @param attributes the call's attributes
	 * @param returned the return type of the most specific method
	 */
	record Advice(OffloadAttributes attributes, Class<?> returned) {

	}

}
