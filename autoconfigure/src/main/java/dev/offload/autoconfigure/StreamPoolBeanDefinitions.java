package dev.offload.autoconfigure;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.function.SingletonSupplier;

import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;
import dev.offload.compile.KernelCache;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendSelection;
import dev.offload.spring.pool.DevicePool;

/**
 * Registers the {@link BackendSelection} bean, made once, and one {@link StreamPool} bean
 * per device, named {@code streamPool0}, {@code streamPool1}, ..., each a view of
 * {@code registry.device(id).streamPool()}; the registry owns the pools, so the beans
 * have no destroy method.
 * <p>
 * The device ids must be known before any bean exists: they are {@code offload.devices}
 * when it lists ids, else the devices of the selected backend
 * ({@code offload.host.device-count} on the host backend, without probing CUDA; the
 * devices the CUDA driver reports otherwise, from the one probe that the selection
 * makes). With an application's own {@link DeviceRegistry}, or its own {@link Backend}
 * and no listed ids, the ids cannot be known yet, and {@link StreamPoolSingletons}
 * registers the pools once the registry exists. With an application's own
 * {@code StreamPool} beans, none are registered.
 * <p>
 * The definitions name their factory methods ({@link OffloadBeanMethods}), so Spring AOT
 * generates code for them. During AOT processing only the ids listed in
 * {@code offload.devices} are registered: the build machine's device count says nothing
 * about where the application runs, so otherwise {@link StreamPoolSingletons} registers
 * the pools at run time.
 */
final class StreamPoolBeanDefinitions
		implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware, ResourceLoaderAware {

	/**
	 * The name of the {@link BackendSelection} bean.
	 */
	static final String SELECTION_BEAN_NAME = "offloadBackendSelection";

	@SuppressWarnings("NullAway.Init") // set by Spring before use (an Aware callback)
	private Environment environment;

	@SuppressWarnings("NullAway.Init") // set by Spring before use (an Aware callback)
	private BeanFactory beanFactory;

	@SuppressWarnings("NullAway.Init") // set by Spring before use (an Aware callback)
	private ResourceLoader resourceLoader;

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
	public void setResourceLoader(ResourceLoader resourceLoader) {
		this.resourceLoader = resourceLoader;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		if (!(registry instanceof ListableBeanFactory beans)
				|| isApplicationDefined(beans, registry, DeviceRegistry.class)
				|| registry.containsBeanDefinition(SELECTION_BEAN_NAME)) {
			return;
		}
		OffloadProperties properties = bindProperties();
		boolean ownBackend = !isApplicationDefined(beans, registry, Backend.class);
		// AOT processing writes code for these definitions: no lambda suppliers, and no
		// count probed on the build machine (which has no GPU); see plannedDeviceIds. The
		// processor sets a system property, which the environment reads.
		boolean aotProcessing = this.environment.getProperty(AbstractAotProcessor.AOT_PROCESSING, Boolean.class, false);
		Supplier<BackendSelection> selection = null;
		if (ownBackend) {
			RootBeanDefinition definition = new RootBeanDefinition(OffloadBeanMethods.class);
			definition.setFactoryMethodName("backendSelection");
			definition.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
			definition.setTargetType(BackendSelection.class);
			definition.setDescription("The backend Offload runs on, and why");
			if (!aotProcessing) {
				// The bean is the selection that counts the devices below, so that CUDA
				// is probed once.
				selection = SingletonSupplier.of(() -> OffloadBeanMethods.backendSelection(
						(properties != null) ? properties : this.beanFactory.getBean(OffloadProperties.class),
						this.resourceLoader, this.environment, this.beanFactory.getBeanProvider(KernelCache.class)));
				definition.setInstanceSupplier(selection);
			}
			registry.registerBeanDefinition(SELECTION_BEAN_NAME, definition);
		}
		if (properties == null || beans.getBeanNamesForType(StreamPool.class, true, false).length > 0) {
			return;
		}
		List<Integer> ids = plannedDeviceIds(properties, selection);
		if (ids == null) {
			return;
		}
		RootBeanDefinition methods = new RootBeanDefinition(OffloadBeanMethods.class);
		methods.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
		methods.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
		registry.registerBeanDefinition(OffloadBeanMethods.BEAN_NAME, methods);
		for (int id : ids) {
			RootBeanDefinition definition = new RootBeanDefinition();
			definition.setFactoryBeanName(OffloadBeanMethods.BEAN_NAME);
			definition.setFactoryMethodName("streamPool");
			definition.getConstructorArgumentValues().addIndexedArgumentValue(0, id);
			definition.setTargetType(StreamPool.class);
			definition.setDescription("The stream pool of Offload device " + id);
			definition.addQualifier(new AutowireCandidateQualifier(DevicePool.class, id));
			registry.registerBeanDefinition(beanName(id), definition);
		}
	}

	/**
	 * Binds the configuration, or returns {@code null} if it does not bind (the
	 * properties bean then fails with the reason).
	 */
	private @Nullable OffloadProperties bindProperties() {
		try {
			return Binder.get(this.environment).bindOrCreate("offload", OffloadProperties.class);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Returns the ids the registry will have, {@code null} if they cannot be known before
	 * it exists, or none if the configuration is invalid (the registry or backend bean
	 * then fails with the reason). Without a selection (an application's own backend, or
	 * AOT processing), only listed ids are known.
	 */
	private static @Nullable List<Integer> plannedDeviceIds(OffloadProperties properties,
			@Nullable Supplier<BackendSelection> selection) {
		try {
			List<Integer> listed = DeviceRegistryFactory.deviceIds(properties, new SettingErrors(null));
			if (listed != null) {
				return listed;
			}
			return (selection != null) ? range(selection.get().deviceCount()) : null;
		}
		catch (RuntimeException ex) {
			return List.of();
		}
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
			return factoryMethod != null
					&& OffloadAutoConfiguration.class.getName().equals(factoryMethod.getDeclaringClassName());
		}
		return false;
	}

}
