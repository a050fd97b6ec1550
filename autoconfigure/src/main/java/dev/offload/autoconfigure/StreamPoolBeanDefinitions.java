package dev.offload.autoconfigure;

import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.autoconfigure.OffloadProperties.BackendType;
import dev.offload.spi.Backend;
import dev.offload.spring.pool.DevicePool;

/**
 * Registers one {@link StreamPool} bean per device, named {@code streamPool0}, {@code streamPool1}, ..., each a view
 * of {@code registry.device(id).streamPool()}; the registry owns the pools, so the beans have no destroy method.
 * <p>
 * The device ids must be known before any bean exists: they are {@code offload.devices} when it lists ids, else
 * {@code 0..offload.host.device-count-1} on the host backend, or the devices the CUDA driver reports. With an
 * application's own {@link DeviceRegistry}, or its own {@link Backend} and no listed ids, the ids cannot be known
 * yet, and {@link StreamPoolSingletons} registers the pools once the registry exists. With an application's own
 * {@code StreamPool} beans, none are registered.
 */
final class StreamPoolBeanDefinitions
		implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware, BeanClassLoaderAware {

	private static final Set<String> OWN_CONFIGURATIONS = Set.of(OffloadAutoConfiguration.class.getName(),
			OffloadBackendConfigurations.CudaOnClasspath.class.getName(),
			OffloadBackendConfigurations.CudaNotOnClasspath.class.getName());

	private Environment environment;

	private BeanFactory beanFactory;

	private ClassLoader classLoader;

	/**
	 * Returns the name of a device's pool bean.
	 * @param deviceId the device's id
	 * @return {@code streamPool} followed by the id
	 */
	static String beanName(int deviceId) {
		return "streamPool" + deviceId;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		if (!(registry instanceof ListableBeanFactory beans)
				|| beans.getBeanNamesForType(StreamPool.class, true, false).length > 0) {
			return;
		}
		List<Integer> ids = plannedDeviceIds(beans, registry);
		if (ids == null) {
			return;
		}
		for (int id : ids) {
			RootBeanDefinition definition = new RootBeanDefinition(StreamPool.class,
					() -> this.beanFactory.getBean(DeviceRegistry.class).device(id).streamPool());
			definition.setDescription("The stream pool of Offload device " + id);
			definition.addQualifier(new AutowireCandidateQualifier(DevicePool.class, id));
			registry.registerBeanDefinition(beanName(id), definition);
		}
	}

	/**
	 * Returns the ids the registry will have, {@code null} if they cannot be known before it exists, or none if the
	 * configuration is invalid (the registry bean then fails with the reason).
	 */
	private List<Integer> plannedDeviceIds(ListableBeanFactory beans, BeanDefinitionRegistry registry) {
		if (isApplicationDefined(beans, registry, DeviceRegistry.class)) {
			return null;
		}
		OffloadProperties properties;
		List<Integer> listed;
		try {
			properties = Binder.get(this.environment).bindOrCreate("offload", OffloadProperties.class);
			listed = DeviceRegistryFactory.deviceIds(properties);
		}
		catch (RuntimeException ex) {
			return List.of();
		}
		if (listed != null) {
			return listed;
		}
		if (isApplicationDefined(beans, registry, Backend.class)) {
			return null;
		}
		CudaBackendSupport cuda = CudaBackendSupport.load(this.classLoader);
		BackendType chosen = new BackendFactory(properties, cuda, null).choose().type();
		if (chosen == BackendType.HOST) {
			return range(properties.getHost().getDeviceCount());
		}
		return (chosen == BackendType.CUDA) ? range(cuda.deviceCount()) : List.of();
	}

	private static List<Integer> range(int count) {
		return IntStream.range(0, Math.max(0, count)).boxed().toList();
	}

	private static boolean isApplicationDefined(ListableBeanFactory beans, BeanDefinitionRegistry registry,
			Class<?> type) {
		for (String name : beans.getBeanNamesForType(type, true, false)) {
			if (!registry.containsBeanDefinition(name) || !isOwn(registry.getBeanDefinition(name))) {
				return true;
			}
		}
		return false;
	}

	private static boolean isOwn(BeanDefinition definition) {
		if (definition instanceof AnnotatedBeanDefinition annotated) {
			MethodMetadata factoryMethod = annotated.getFactoryMethodMetadata();
			return factoryMethod != null && OWN_CONFIGURATIONS.contains(factoryMethod.getDeclaringClassName());
		}
		return false;
	}

}
