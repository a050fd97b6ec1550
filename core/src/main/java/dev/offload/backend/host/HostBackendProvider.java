package dev.offload.backend.host;

import java.util.Objects;

import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * Provides a {@link HostBackend} from a builder; the host emulation can always run.
 */
public final class HostBackendProvider implements BackendProvider {

	private final HostBackend.Builder builder;

	/**
	 * Creates a provider.
	 * @param builder the configured builder, whose values have been checked
	 */
	public HostBackendProvider(HostBackend.Builder builder) {
		this.builder = Objects.requireNonNull(builder, "builder must not be null");
	}

	@Override
	public String name() {
		return HostBackend.NAME;
	}

	@Override
	public BackendAvailability probe() {
		int count = this.builder.deviceCount();
		return BackendAvailability.available(count, count + " device(s) emulated on the CPU");
	}

	@Override
	public HostBackend create() {
		return this.builder.build();
	}

}
