package dev.offload.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadListener;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;

/**
 * A user's {@link DeviceRegistry} over two host devices, fed by every
 * {@link OffloadListener} bean: device 0 has an unbounded pool starting at
 * {@value #INITIAL_SIZE} streams, device 1 a pool starting at
 * {@value #BOUNDED_INITIAL_SIZE} and bounded at {@value #MAX_SIZE}, with a short borrow
 * timeout.
 */
@Configuration(proxyBeanMethods = false)
public class HostDeviceRegistryConfiguration {

	/**
	 * The initial size of device 0's pool.
	 */
	public static final int INITIAL_SIZE = 4;

	/**
	 * The initial size of device 1's pool.
	 */
	public static final int BOUNDED_INITIAL_SIZE = 2;

	/**
	 * The bound of device 1's pool.
	 */
	public static final int MAX_SIZE = 3;

	@Bean(destroyMethod = "")
	HostBackend hostBackend() {
		return HostBackend.builder().deviceCount(2).workersPerDevice(2).build();
	}

	@Bean
	DeviceRegistry deviceRegistry(HostBackend backend, ObjectProvider<OffloadListener> listeners) {
		return DeviceRegistry.builder(backend)
			.streamPool(new StreamPoolConfig(INITIAL_SIZE, 0, Duration.ofSeconds(30)))
			.streamPool(1, new StreamPoolConfig(BOUNDED_INITIAL_SIZE, MAX_SIZE, Duration.ofMillis(50)))
			.listener(OffloadListener.composite(listeners.orderedStream().toList()))
			.awaitTermination(Duration.ofSeconds(1))
			.build();
	}

}
