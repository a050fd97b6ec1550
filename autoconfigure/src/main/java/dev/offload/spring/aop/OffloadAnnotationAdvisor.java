package dev.offload.spring.aop;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.Objects;

import org.aopalliance.aop.Advice;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.offload.template.Offload;

/**
 * Applies an {@link OffloadMethodInterceptor} to classes and methods annotated with
 * {@link Offload @Offload} (also on interfaces and superclasses), as Spring's
 * {@code AsyncAnnotationAdvisor} does for {@code @Async}.
 */
public final class OffloadAnnotationAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Advice advice;

	private final transient Pointcut pointcut;

	/**
	 * Creates the advisor.
	 * @param interceptor the advice
	 */
	public OffloadAnnotationAdvisor(OffloadMethodInterceptor interceptor) {
		this.advice = Objects.requireNonNull(interceptor, "interceptor must not be null");
		this.pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(Offload.class, true))
			.union(new AnnotationMatchingPointcut(null, Offload.class, true))
			.intersection(DeclaresOffloadClassFilter.INSTANCE);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	/**
	 * Matches a class only if {@link Offload @Offload} is declared in its type hierarchy:
	 * on the class, a superclass or an interface, or on a method of one of them. Every
	 * class the pointcuts match passes; checking each type's own annotations once rejects
	 * the many beans without {@code @Offload} at startup, where the method pointcut alone
	 * searches the type hierarchy of every method of every bean.
	 */
	static final class DeclaresOffloadClassFilter implements ClassFilter {

		static final DeclaresOffloadClassFilter INSTANCE = new DeclaresOffloadClassFilter();

		private DeclaresOffloadClassFilter() {
		}

		@Override
		public boolean matches(Class<?> clazz) {
			for (Class<?> type = clazz; type != null && type != Object.class; type = type.getSuperclass()) {
				if (declaresOffload(type)) {
					return true;
				}
			}
			for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(clazz)) {
				if (declaresOffload(type)) {
					return true;
				}
			}
			return false;
		}

		private static boolean declaresOffload(Class<?> type) {
			if (isAnnotated(type)) {
				return true;
			}
			for (Method method : ReflectionUtils.getDeclaredMethods(type)) {
				if (isAnnotated(method)) {
					return true;
				}
			}
			return false;
		}

		// Directly present or as a meta-annotation, as the pointcuts find it.
		private static boolean isAnnotated(AnnotatedElement element) {
			return MergedAnnotations.from(element).isPresent(Offload.class);
		}

	}

}
