package dev.offload.spring.aop;

import java.util.function.Supplier;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;

import dev.offload.DeviceRegistry;
import dev.offload.template.Offload;

/**
 * Proxies beans with {@link Offload @Offload} classes or methods so that their calls run in sessions, in the way of
 * Spring's {@code AsyncAnnotationBeanPostProcessor} and {@code MethodValidationPostProcessor}: no AspectJ and no
 * auto-proxy creator needed. A bean that is already a proxy gets the advisor added.
 * <p>
 * As with any proxy, only calls through it are advised: a bean calling its own method, or an annotated method
 * called from {@code @PostConstruct} (before the proxy exists), runs without a session of its own.
 */
public class OffloadAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the post-processor.
	 * @param registry supplies the registry on the first advised call
	 */
	public OffloadAnnotationBeanPostProcessor(Supplier<DeviceRegistry> registry) {
		this.advisor = new OffloadAnnotationAdvisor(new OffloadMethodInterceptor(registry));
	}

}
