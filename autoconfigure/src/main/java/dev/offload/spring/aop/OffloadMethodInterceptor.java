package dev.offload.spring.aop;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

import dev.offload.DeviceRegistry;
import dev.offload.template.Offload;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadInvoker;
import dev.offload.template.TenantResolver;

/**
 * Runs methods annotated with {@link Offload @Offload} through an {@link OffloadInvoker}:
 * the session is opened or joined per the annotation, bound to the thread for the call,
 * and ended when the method returns or throws; a method declared to return
 * {@link CompletionStage} or {@link CompletableFuture} keeps it until its stage completes
 * and the session's work is done. Exceptions reach the caller unchanged.
 */
public final class OffloadMethodInterceptor implements MethodInterceptor {

	private final Supplier<OffloadInvoker> invoker;

	private final OffloadAttributeSource attributeSource;

	/**
	 * Creates an interceptor that finds the registry on its first call, so that the
	 * post-processor holding it does not create the registry early.
	 * @param registry supplies the registry
	 */
	public OffloadMethodInterceptor(Supplier<DeviceRegistry> registry) {
		this(registry, () -> TenantResolver.NONE, new OffloadAttributeSource());
	}

	/**
	 * Creates an interceptor that reads the annotations through {@code attributeSource},
	 * which the post-processor has already filled (and so validated) at startup.
	 */
	OffloadMethodInterceptor(Supplier<DeviceRegistry> registry, Supplier<TenantResolver> tenantResolver,
			OffloadAttributeSource attributeSource) {
		Objects.requireNonNull(registry, "registry must not be null");
		Objects.requireNonNull(tenantResolver, "tenantResolver must not be null");
		this.invoker = SingletonSupplier.of(() -> new OffloadInvoker(registry.get(), tenantResolver.get()));
		this.attributeSource = attributeSource;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis()) : null;
		OffloadAttributeSource.Advice advice = this.attributeSource.find(method, targetClass);
		if (advice == null) {
			return invocation.proceed();
		}
		OffloadAttributes attributes = advice.attributes();
		Class<?> returned = advice.returned();
		if (returned == CompletionStage.class || returned == CompletableFuture.class) {
			return this.invoker.get().invokeAsync(attributes, () -> (CompletionStage<?>) invocation.proceed());
		}
		if (CompletionStage.class.isAssignableFrom(returned)) {
			// A stage of the application's own type: the caller gets it as the method
			// returned it, and the session stays open until it completes.
			AtomicReference<@Nullable CompletionStage<?>> own = new AtomicReference<>();
			this.invoker.get().invokeAsync(attributes, () -> {
				CompletionStage<?> stage = (CompletionStage<?>) invocation.proceed();
				own.set(stage);
				return stage;
			});
			return own.get();
		}
		return this.invoker.get().invoke(attributes, invocation::proceed);
	}

}
