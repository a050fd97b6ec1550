package dev.offload.spring.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.offload.template.BatchPolicy;
import dev.offload.template.Batched;
import dev.offload.template.Batcher;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadTemplate;

/**
 * Queues the item of a call to a {@link Batched @Batched} method in the {@link Batcher}
 * of that method and bean, started on the first call; each batch calls the batch method
 * through the bean's proxy. The batchers are closed with {@link #close()}.
 */
public final class BatchedMethodInterceptor implements MethodInterceptor, AutoCloseable {

	private final Supplier<OffloadTemplate> template;

	private final Map<Key, Batcher<Object, Object>> batchers = new ConcurrentHashMap<>();

	/**
	 * Creates an interceptor that finds the template on its first call.
	 * @param template supplies the template whose policy and listener the batchers use
	 */
	public BatchedMethodInterceptor(Supplier<OffloadTemplate> template) {
		this.template = Objects.requireNonNull(template, "template must not be null");
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (!(invocation instanceof ProxyMethodInvocation proxied) || target == null) {
			return invocation.proceed();
		}
		Class<?> targetClass = AopUtils.getTargetClass(target);
		Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
		Batched batched = AnnotatedElementUtils.findMergedAnnotation(method, Batched.class);
		if (batched == null) {
			return invocation.proceed();
		}
		Object proxy = proxied.getProxy();
		Batcher<Object, Object> batcher = this.batchers.computeIfAbsent(new Key(proxy, method),
				(key) -> start(proxy, target, targetClass, method, batched));
		Object item = invocation.getArguments()[0];
		Duration timeout = timeout(batched);
		return (timeout != null) ? batcher.submit(item, timeout) : batcher.submit(item);
	}

	private Batcher<Object, Object> start(Object proxy, Object target, Class<?> targetClass, Method method,
			Batched batched) {
		Method batchMethod = batchMethod(targetClass, method, batched);
		// Through the proxy, so that the batch method's own advice applies; a proxy of
		// interfaces only that does not declare it calls the bean itself.
		Object receiver = proxy;
		Method call = batchMethod;
		if (!batchMethod.getDeclaringClass().isInstance(proxy)) {
			Method declared = ClassUtils.getMethodIfAvailable(proxy.getClass(), batchMethod.getName(), List.class);
			if (declared != null) {
				call = declared;
			}
			else {
				receiver = target;
			}
		}
		Object batchReceiver = receiver;
		Method batchCall = call;
		OffloadTemplate offloadTemplate = this.template.get();
		return offloadTemplate.batcher(ClassUtils.getShortName(targetClass) + "." + method.getName(),
				(items) -> callBatchMethod(batchReceiver, batchCall, items),
				policy(offloadTemplate.batchPolicy(), batched));
	}

	@SuppressWarnings("unchecked")
	private static CompletionStage<List<Object>> callBatchMethod(Object proxy, Method batchMethod, List<Object> items) {
		Object result;
		try {
			result = batchMethod.invoke(proxy, items);
		}
		catch (InvocationTargetException ex) {
			return CompletableFuture.failedFuture(ex.getCause());
		}
		catch (IllegalAccessException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (result instanceof CompletionStage<?> stage) {
			return (CompletionStage<List<Object>>) stage;
		}
		return CompletableFuture.completedFuture((List<Object>) result);
	}

	/**
	 * Returns the batch policy a {@link Batched @Batched} method asks for.
	 * @param defaults the policy of {@code offload.batching.*}
	 * @param batched the annotation
	 * @return the policy
	 * @throws IllegalArgumentException if a value is out of its bounds
	 */
	static BatchPolicy policy(BatchPolicy defaults, Batched batched) {
		BatchPolicy policy = defaults;
		if (batched.maxBatchSize() != 0) {
			policy = policy.withMaxBatchSize(batched.maxBatchSize());
		}
		Duration delay = maxDelay(batched);
		if (delay != null) {
			policy = policy.withMaxDelay(delay);
		}
		return policy;
	}

	/**
	 * Returns a {@link Batched @Batched} method's {@code maxDelay}: 0 or more (0
	 * dispatches what is queued at once, as {@code offload.batching.max-delay: 0}).
	 * @param batched the annotation
	 * @return the delay, or {@code null} for the configured one
	 * @throws IllegalArgumentException naming the attribute if it is no such duration
	 */
	static @Nullable Duration maxDelay(Batched batched) {
		try {
			return OffloadAttributes.parseDuration(batched.maxDelay());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"maxDelay '" + batched.maxDelay() + "' is not a duration of 0 or more, such as 5ms or PT0.005S",
					ex);
		}
	}

	/**
	 * Returns a {@link Batched @Batched} method's {@code timeout}.
	 * @param batched the annotation
	 * @return the timeout, or {@code null} for none
	 * @throws IllegalArgumentException naming the attribute if it is no positive duration
	 */
	static @Nullable Duration timeout(Batched batched) {
		try {
			return OffloadAttributes.parseTimeout(batched.timeout());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"timeout '" + batched.timeout() + "' is not a positive duration, such as 50ms or PT0.05S", ex);
		}
	}

	/**
	 * Finds the batch method of a {@link Batched @Batched} method and checks both shapes.
	 * @param targetClass the bean's class
	 * @param method the annotated method
	 * @param batched its annotation
	 * @return the batch method
	 * @throws IllegalStateException naming the method and what is wrong with its shape
	 */
	static Method batchMethod(Class<?> targetClass, Method method, Batched batched) {
		String name = ClassUtils.getShortName(targetClass) + "." + method.getName();
		Class<?> returned = method.getReturnType();
		if (method.getParameterCount() != 1
				|| (returned != CompletableFuture.class && returned != CompletionStage.class)) {
			throw new IllegalStateException("@Batched method " + name + " must take one item and return a "
					+ "CompletableFuture or CompletionStage of its result");
		}
		Method batchMethod = ReflectionUtils.findMethod(targetClass, batched.batchMethod(), List.class);
		if (batchMethod == null) {
			throw new IllegalStateException("@Batched method " + name + " names batch method '" + batched.batchMethod()
					+ "', but " + ClassUtils.getShortName(targetClass) + " has no method '" + batched.batchMethod()
					+ "(List)'");
		}
		Class<?> batchReturned = batchMethod.getReturnType();
		if (!List.class.isAssignableFrom(batchReturned) && !CompletionStage.class.isAssignableFrom(batchReturned)) {
			throw new IllegalStateException("Batch method " + batched.batchMethod() + " of @Batched method " + name
					+ " must return a List of results, one per item, or a CompletionStage of one; it returns "
					+ batchReturned.getSimpleName());
		}
		ReflectionUtils.makeAccessible(batchMethod);
		return batchMethod;
	}

	/**
	 * Closes every batcher: the queued items are dispatched, then the dispatchers end.
	 */
	@Override
	public void close() {
		this.batchers.values().forEach(Batcher::close);
		this.batchers.clear();
	}

	private record Key(Object proxy, Method method) {

		@Override
		public boolean equals(Object other) {
			return other instanceof Key key && key.proxy == this.proxy && key.method.equals(this.method);
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this.proxy) * 31 + this.method.hashCode();
		}

	}

}
