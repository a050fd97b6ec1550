package dev.offload.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

import dev.offload.DeviceRegistry;
import dev.offload.spi.Backend;

/**
 * The configurations of the {@link Backend} bean, imported in order by {@link OffloadAutoConfiguration}: with
 * JCuda and the CUDA backend on the classpath, then without. The {@link DeviceRegistry} owns the backend and closes
 * it, so the beans have no destroy method.
 */
final class OffloadBackendConfigurations {

	private OffloadBackendConfigurations() {
	}

	/**
	 * The backend when JCuda and Offload's CUDA backend are on the classpath: CUDA if it is usable.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { CudaBackendSupport.DRIVER_CLASS_NAME, CudaBackendSupport.BACKEND_CLASS_NAME })
	@ConditionalOnMissingBean({ Backend.class, DeviceRegistry.class })
	static class CudaOnClasspath {

		@Bean(destroyMethod = "")
		Backend offloadBackend(OffloadProperties properties, ResourceLoader resourceLoader) {
			ClassLoader classLoader = resourceLoader.getClassLoader();
			CudaBackendSupport cuda = CudaBackendSupport.load(classLoader);
			String absence = (cuda != null) ? null : CudaBackendSupport.absenceReason(classLoader);
			return new BackendFactory(properties, cuda, absence).create();
		}

	}

	/**
	 * The backend when JCuda or Offload's CUDA backend is missing: host, unless CUDA is required.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean({ Backend.class, DeviceRegistry.class })
	static class CudaNotOnClasspath {

		@Bean(destroyMethod = "")
		Backend offloadBackend(OffloadProperties properties, ResourceLoader resourceLoader) {
			String absence = CudaBackendSupport.absenceReason(resourceLoader.getClassLoader());
			return new BackendFactory(properties, null, absence).create();
		}

	}

}
