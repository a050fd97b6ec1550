package dev.offload.backend.cuda;

import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * Provides the {@link CudaBackend}: its probe initializes the driver once per process and
 * caches the answer.
 */
public final class CudaBackendProvider implements BackendProvider {

	private final KernelCache kernelCache;

	/**
	 * Creates a provider whose backend caches compiled kernels in
	 * {@link KernelCache#defaultDirectory()} and finds NVRTC by soname.
	 */
	public CudaBackendProvider() {
		this(KernelCache.create(KernelCache.defaultDirectory(), null));
	}

	/**
	 * Creates a provider whose backend compiles modules from CUDA source through
	 * {@code kernelCache}.
	 * @param kernelCache the compiled images of modules from CUDA source
	 */
	public CudaBackendProvider(KernelCache kernelCache) {
		this.kernelCache = kernelCache;
	}

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
		return CudaBackend.create(this.kernelCache);
	}

}
