package dev.offload.spring.aop;

import java.util.Objects;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

import dev.offload.template.Offload;

/**
 * Applies an {@link OffloadMethodInterceptor} to classes and methods annotated with {@link Offload @Offload}
 * (also on interfaces and superclasses), as Spring's {@code AsyncAnnotationAdvisor} does for {@code @Async}.
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
			.union(new AnnotationMatchingPointcut(null, Offload.class, true));
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

}
