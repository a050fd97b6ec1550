package dev.offload.spring.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.offload.DeviceRegistry;
import dev.offload.template.TenantResolver;
import dev.offload.template.Offload;
import dev.offload.template.OffloadAttributes;

/**
 * Proxies beans with {@link Offload @Offload} classes or methods so that their calls run
 * in sessions, in the way of Spring's {@code AsyncAnnotationBeanPostProcessor} and
 * {@code MethodValidationPostProcessor}: no AspectJ and no auto-proxy creator needed. A
 * bean that is already a proxy gets the advisor added.
 * <p>
 * Once every singleton exists, the devices that the advised beans' annotations name are
 * checked against the registry: one that does not exist fails startup with an
 * {@link UnknownOffloadDeviceException}.
 * <p>
 * As with any proxy, only calls through it are advised: a bean calling its own method, or
 * an annotated method called from {@code @PostConstruct} (before the proxy exists), runs
 * without a session of its own.
 */
public class OffloadAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private static final long serialVersionUID = 1L;

	private final transient Supplier<DeviceRegistry> registry;

	// One source for the startup check and the calls: each annotation is read and
	// validated once.
	private final transient OffloadAttributeSource attributes = new OffloadAttributeSource();

	// Bean name to the devices its annotations name, each with the method (or class) that
	// names it.
	private final transient Map<String, Map<String, Integer>> namedDevices = new ConcurrentHashMap<>();

	/**
	 * Creates the post-processor.
	 * @param registry supplies the registry on the first advised call
	 */
	public OffloadAnnotationBeanPostProcessor(Supplier<DeviceRegistry> registry) {
		this(registry, () -> TenantResolver.NONE);
	}

	/**
	 * Creates the post-processor whose sessions ask a resolver for their tenant when
	 * their annotation names none.
	 * @param registry supplies the registry on the first advised call
	 * @param tenantResolver supplies the resolver on the first advised call
	 */
	public OffloadAnnotationBeanPostProcessor(Supplier<DeviceRegistry> registry,
			Supplier<TenantResolver> tenantResolver) {
		this.registry = registry;
		this.advisor = new OffloadAnnotationAdvisor(
				new OffloadMethodInterceptor(registry, tenantResolver, this.attributes));
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		// A bean already behind a proxy (a JDK proxy of its interfaces, say) is advised
		// by its target's class: its annotations are checked the same.
		boolean advised = isEligible(bean, beanName)
				|| (bean instanceof Advised proxy && !proxy.isFrozen() && isEligible(AopUtils.getTargetClass(bean)));
		if (advised) {
			// A timeout that is no duration fails the startup, not the first call.
			Class<?> type = AopUtils.getTargetClass(bean);
			ReflectionUtils.doWithMethods(type, (method) -> check(this.attributes, beanName, type, method),
					(method) -> !ReflectionUtils.isObjectMethod(method) && !method.isSynthetic());
		}
		Object result = super.postProcessAfterInitialization(bean, beanName);
		if (advised) {
			Map<String, Integer> devices = namedDevices(ClassUtils.getUserClass(AopUtils.getTargetClass(bean)));
			if (!devices.isEmpty()) {
				this.namedDevices.put(beanName, devices);
			}
		}
		return result;
	}

	private static void check(OffloadAttributeSource attributes, String beanName, Class<?> type, Method method) {
		try {
			attributes.find(method, type);
		}
		catch (IllegalArgumentException ex) {
			Class<?> userType = ClassUtils.getUserClass(type);
			Offload offload = AnnotatedElementUtils.findMergedAnnotation(method, Offload.class);
			if (offload == null) {
				offload = AnnotatedElementUtils.findMergedAnnotation(userType, Offload.class);
			}
			String timeout = (offload != null && !isDuration(offload.timeout())) ? offload.timeout() : null;
			IllegalArgumentException reason = (ex.getCause() instanceof IllegalArgumentException cause) ? cause : ex;
			throw new InvalidOffloadAnnotationException(beanName, describe(userType, method), timeout, reason);
		}
	}

	private static boolean isDuration(String timeout) {
		try {
			OffloadAttributes.parseTimeout(timeout);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static Map<String, Integer> namedDevices(Class<?> type) {
		Map<String, Integer> devices = new LinkedHashMap<>();
		Offload onClass = AnnotatedElementUtils.findMergedAnnotation(type, Offload.class);
		if (onClass != null && onClass.device() != OffloadAttributes.ANY_DEVICE) {
			devices.put(type.getSimpleName(), onClass.device());
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			Offload offload = AnnotatedElementUtils.findMergedAnnotation(method, Offload.class);
			if (offload != null && offload.device() != OffloadAttributes.ANY_DEVICE) {
				devices.put(describe(type, method), offload.device());
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return devices;
	}

	private static String describe(Class<?> type, Method method) {
		String parameters = Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		return type.getSimpleName() + "." + method.getName() + "(" + parameters + ")";
	}

	/**
	 * Checks that every device the advised beans name exists.
	 * @throws UnknownOffloadDeviceException naming the first bean and method whose device
	 * does not exist
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.namedDevices.isEmpty()) {
			return;
		}
		List<Integer> ids = this.registry.get().ids();
		this.namedDevices.forEach((beanName, devices) -> devices.forEach((method, device) -> {
			if (!ids.contains(device)) {
				throw new UnknownOffloadDeviceException(beanName, method, device, ids);
			}
		}));
	}

}
