package dev.offload.backend.cuda;

import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * Provides the {@link CudaBackend}: its probe initializes the driver once per process and
 * caches the answer.
 */
public final class CudaBackendProvider implements BackendProvider {

	@Override
	public String name() {
		return CudaBackend.NAME;
	}

	@Override
	public BackendAvailability probe() {
		CudaAvailability availability = CudaBackend.probe();
		return availability.available()
				? BackendAvailability.available(availability.deviceCount(), availability.message())
				: BackendAvailability.unavailable(availability.message());
	}

	/**
	 * Creates the CUDA backend.
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	@Override
	public CudaBackend create() {
		return CudaBackend.create();
	}

}
