package dev.offload;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link StreamPools}: a registry's pools by device id.
 */
class StreamPoolsTests {

	private final DeviceRegistry registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).build())
		.build();

	private final StreamPools pools = new StreamPools(this.registry);

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void getShouldReturnTheDevicesPool() {
		assertThat(this.pools.get(1)).isSameAs(this.registry.device(1).streamPool());
		assertThat(this.pools.ids()).containsExactly(0, 1);
		assertThat(this.pools.asMap()).containsOnlyKeys(0, 1).containsEntry(0, this.registry.device(0).streamPool());
	}

	@Test
	void getWithAnUnknownIdShouldListTheIds() {
		assertThatExceptionOfType(NoSuchDeviceException.class).isThrownBy(() -> this.pools.get(2))
			.withMessage("No device with id 2; the devices are [0, 1]");
	}

}
