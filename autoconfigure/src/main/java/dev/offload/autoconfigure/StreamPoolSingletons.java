package dev.offload.autoconfigure;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;

/**
 * Registers the {@code streamPoolN} beans once the {@link DeviceRegistry} exists, when
 * {@link StreamPoolBeanDefinitions} could not know the device ids in advance (an
 * application's own registry or backend, or Spring AOT processing without listed ids).
 * Beans created before the registry do not see these pools: inject the
 * {@link DeviceRegistry} there.
 */
final class StreamPoolSingletons implements BeanPostProcessor, BeanFactoryAware {

	@SuppressWarnings("NullAway.Init") // set by Spring before use (an Aware callback)
	private ConfigurableListableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof DeviceRegistry registry && this.beanFactory != null
				&& this.beanFactory.getBeanNamesForType(StreamPool.class, true, false).length == 0
				&& this.beanFactory.getBeanNamesForType(DeviceRegistry.class, true, false).length == 1) {
			for (Device device : registry.devices()) {
				this.beanFactory.registerSingleton(StreamPoolBeanDefinitions.beanName(device.id()),
						device.streamPool());
			}
		}
		return bean;
	}

}
