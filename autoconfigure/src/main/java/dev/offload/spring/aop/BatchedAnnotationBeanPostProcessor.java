package dev.offload.spring.aop;

import java.util.function.Supplier;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import dev.offload.template.BatchPolicy;
import dev.offload.template.Batched;
import dev.offload.template.OffloadTemplate;

/**
 * Proxies beans with {@link Batched @Batched} methods so that their calls are gathered
 * into batches ({@link BatchedMethodInterceptor}). The shapes of the annotated methods
 * and of their batch methods, and the annotations' values, are checked as each bean is
 * processed, so that a wrong shape fails startup. The batchers are drained with their
 * registry when the context closes (they refuse new calls, and dispatch the queued ones
 * while the pools still lend), and closed again, harmlessly, when this is destroyed.
 */
public class BatchedAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements DisposableBean {

	private static final long serialVersionUID = 1L;

	private final transient BatchedMethodInterceptor interceptor;

	private final transient Supplier<BatchPolicy> batchPolicy;

	/**
	 * Creates the post-processor.
	 * @param template supplies the template on the first batched call
	 */
	public BatchedAnnotationBeanPostProcessor(Supplier<OffloadTemplate> template) {
		this(template, () -> BatchPolicy.DEFAULTS);
	}

	/**
	 * Creates the post-processor, checking each {@link Batched @Batched} method's policy
	 * against the configured one at startup.
	 * @param template supplies the template whose batchers serve the calls
	 * @param batchPolicy supplies the policy of {@code offload.batching.*}, which a
	 * method's attributes change
	 */
	public BatchedAnnotationBeanPostProcessor(Supplier<OffloadTemplate> template, Supplier<BatchPolicy> batchPolicy) {
		this.batchPolicy = batchPolicy;
		this.interceptor = new BatchedMethodInterceptor(template);
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Batched.class, true),
				this.interceptor);
		// Before the @Offload advice: a batched call queues its item and opens no
		// session.
		this.beforeExistingAdvisors = true;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (isEligible(bean, beanName)) {
			Class<?> type = AopUtils.getTargetClass(bean);
			ReflectionUtils.doWithMethods(type, (method) -> {
				Batched batched = AnnotatedElementUtils.findMergedAnnotation(method, Batched.class);
				if (batched != null) {
					BatchedMethodInterceptor.batchMethod(type, method, batched);
					try {
						BatchedMethodInterceptor.policy(this.batchPolicy.get(), batched);
						BatchedMethodInterceptor.timeout(batched);
					}
					catch (IllegalArgumentException ex) {
						throw new IllegalStateException("Invalid @Batched on " + type.getSimpleName() + "."
								+ method.getName() + ": " + ex.getMessage(), ex);
					}
				}
			}, ReflectionUtils.USER_DECLARED_METHODS);
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	public void destroy() {
		this.interceptor.close();
	}

}
