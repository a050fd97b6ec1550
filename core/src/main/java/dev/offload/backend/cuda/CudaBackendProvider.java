package dev.offload.backend.cuda;

import java.util.Objects;
import java.util.function.Supplier;

import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * Provides the {@link CudaBackend}: its probe initializes the driver once per process and
 * caches the answer.
 */
public final class CudaBackendProvider implements BackendProvider {

	private final Supplier<KernelCache> kernelCache;

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
		Objects.requireNonNull(kernelCache, "kernelCache");
		this.kernelCache = () -> kernelCache;
	}

	/**
	 * Creates a provider whose backend compiles modules from CUDA source through the
	 * cache that {@code kernelCache} gives when the backend is created, not before: for a
	 * backend chosen before the cache exists (Spring Boot chooses it while it registers
	 * the beans, and the cache is a bean configured by {@code offload.kernels.*}).
	 * @param kernelCache gives the compiled images of modules from CUDA source
	 */
	public CudaBackendProvider(Supplier<KernelCache> kernelCache) {
		this.kernelCache = Objects.requireNonNull(kernelCache, "kernelCache");
	}

	/**
	 * Returns the cache the backends of this provider compile modules from CUDA source
	 * through.
	 * @return the cache
	 */
	public KernelCache kernelCache() {
		return Objects.requireNonNull(this.kernelCache.get(), "the kernel cache supplier gave null");
	}

	@Override
	public String name() {
		return CudaBackend.NAME;
	}

	/**
	 * Returns {@code jcuda}: this provider reaches the driver through JCuda's JNI.
	 */
	@Override
	public String binding() {
		return "jcuda";
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
		return CudaBackend.create(kernelCache());
	}

}
